package rbac

import (
	"context"
	"testing"

	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/request"
)

// teamPolicy: bob may read databases in team-a (a Role), update their status in team-a only
// through a RoleBinding to a ClusterRole, and get the one backup "nightly" anywhere.
func teamPolicy() *Policy {
	p := Bootstrap()
	p.Roles = append(p.Roles,
		Role{Namespace: "team-a", Name: "db-reader", Rules: []PolicyRule{
			{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"db.example.com"}, Resources: []string{"databases"}},
		}},
		Role{Name: "status-writer", Rules: []PolicyRule{
			{Verbs: []string{"update", "patch"}, APIGroups: []string{All}, Resources: []string{"*/status"}},
		}},
		Role{Name: "nightly-reader", Rules: []PolicyRule{
			{Verbs: []string{"get"}, APIGroups: []string{"db.example.com"}, Resources: []string{"backups"}, ResourceNames: []string{"nightly"}},
			{Verbs: []string{"get"}, NonResourceURLs: []string{"/openapi/*"}},
		}},
	)
	bob := []Subject{{Kind: "User", Name: "bob"}}
	p.Bindings = append(p.Bindings,
		Binding{Namespace: "team-a", Name: "bob-reads", RoleRef: RoleRef{Kind: "Role", Name: "db-reader"}, Subjects: bob},
		Binding{Namespace: "team-a", Name: "bob-status", RoleRef: RoleRef{Kind: "ClusterRole", Name: "status-writer"}, Subjects: bob},
		Binding{Name: "bob-nightly", RoleRef: RoleRef{Kind: "ClusterRole", Name: "nightly-reader"}, Subjects: bob},
		Binding{Name: "dangling", RoleRef: RoleRef{Kind: "ClusterRole", Name: "no-such-role"}, Subjects: bob},
		Binding{Name: "cluster-binding-to-a-role", RoleRef: RoleRef{Kind: "Role", Name: "db-reader"}, Subjects: bob},
		Binding{Namespace: "team-a", Name: "robot", RoleRef: RoleRef{Kind: "Role", Name: "db-reader"},
			Subjects: []Subject{{Kind: "ServiceAccount", Namespace: "ci", Name: "robot"}}},
	)
	return p
}

func res(verb, ns, group, resource, name, sub string) request.RequestInfo {
	return request.RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: group, APIVersion: "v1",
		Namespace: ns, Resource: resource, Name: name, Subresource: sub}
}

func TestPolicyAllows(t *testing.T) {
	p := teamPolicy()
	bob := &request.User{Name: "bob", Groups: []string{request.AllAuthenticated}}
	admin := &request.User{Name: "root", Groups: []string{request.SystemPrivilegedGroup}}
	anon := &request.User{Name: request.Anonymous, Groups: []string{request.AllUnauthenticated}}
	robot := &request.User{Name: "system:serviceaccount:ci:robot"}
	for _, tc := range []struct {
		name string
		user *request.User
		info request.RequestInfo
		want bool
	}{
		{"role grants in its namespace", bob, res("list", "team-a", "db.example.com", "databases", "", ""), true},
		{"role grants nothing elsewhere", bob, res("list", "team-b", "db.example.com", "databases", "", ""), false},
		{"role grants no other verb", bob, res("delete", "team-a", "db.example.com", "databases", "main", ""), false},
		{"role grants no other group", bob, res("get", "team-a", "other.example.com", "databases", "main", ""), false},
		{"role grants not the subresource", bob, res("get", "team-a", "db.example.com", "databases", "main", "status"), false},
		{"*/status via a RoleBinding to a ClusterRole", bob, res("update", "team-a", "db.example.com", "databases", "main", "status"), true},
		{"that ClusterRole only in the binding's namespace", bob, res("update", "team-b", "db.example.com", "databases", "main", "status"), false},
		{"*/status is not the main resource", bob, res("update", "team-a", "db.example.com", "databases", "main", ""), false},
		{"resourceNames allow the named object", bob, res("get", "team-c", "db.example.com", "backups", "nightly", ""), true},
		{"resourceNames allow no other", bob, res("get", "team-c", "db.example.com", "backups", "weekly", ""), false},
		{"resourceNames allow no list", bob, res("list", "team-c", "db.example.com", "backups", "", ""), false},
		{"non-resource prefix", bob, request.RequestInfo{Verb: "get", Path: "/openapi/v3"}, true},
		{"non-resource other path", bob, request.RequestInfo{Verb: "get", Path: "/metrics"}, false},
		{"discovery for the authenticated", bob, request.RequestInfo{Verb: "get", Path: "/apis/db.example.com/v1"}, true},
		{"no discovery for the anonymous", anon, request.RequestInfo{Verb: "get", Path: "/apis"}, false},
		{"system:masters may do anything", admin, res("deletecollection", "", "db.example.com", "backups", "", ""), true},
		{"system:masters any path", admin, request.RequestInfo{Verb: "post", Path: "/anything"}, true},
		{"anonymous may read /healthz", anon, request.RequestInfo{Verb: "get", Path: "/healthz"}, true},
		{"anonymous may not read /apis", anon, request.RequestInfo{Verb: "get", Path: "/apis"}, false},
		{"anonymous may not list", anon, res("list", "team-a", "db.example.com", "databases", "", ""), false},
		{"service account subject", robot, res("get", "team-a", "db.example.com", "databases", "x", ""), true},
		{"no user", nil, request.RequestInfo{Verb: "get", Path: "/healthz"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Allows(authorization.Attributes{User: tc.user, RequestInfo: tc.info}); got != tc.want {
				t.Errorf("Allows = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAuthorizeReason: an allowed request names the binding that allowed it, in kube's words.
func TestAuthorizeReason(t *testing.T) {
	z := Authorizer((*StaticPolicy)(teamPolicy()))
	bob := &request.User{Name: "bob", Groups: []string{request.AllAuthenticated}}
	for _, tc := range []struct {
		user *request.User
		info request.RequestInfo
		want string
	}{
		{bob, res("list", "team-a", "db.example.com", "databases", "", ""), `RBAC: allowed by RoleBinding "bob-reads/team-a" of Role "db-reader" to User "bob"`},
		{bob, request.RequestInfo{Verb: "get", Path: "/apis"}, `RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"`},
		{&request.User{Name: "system:serviceaccount:ci:robot"}, res("get", "team-a", "db.example.com", "databases", "x", ""),
			`RBAC: allowed by RoleBinding "robot/team-a" of Role "db-reader" to ServiceAccount "robot/ci"`},
	} {
		d, reason, err := z.Authorize(context.Background(), authorization.Attributes{User: tc.user, RequestInfo: tc.info})
		if d != authorization.Allow || reason != tc.want || err != nil {
			t.Errorf("%s %+v: %v %q %v, want Allow %q", tc.user.Name, tc.info, d, reason, err, tc.want)
		}
	}
	if d, reason, _ := z.Authorize(context.Background(), authorization.Attributes{User: bob, RequestInfo: res("delete", "team-a", "db.example.com", "databases", "x", "")}); d != authorization.NoOpinion || reason != "" {
		t.Errorf("denied: %v %q", d, reason)
	}
}
