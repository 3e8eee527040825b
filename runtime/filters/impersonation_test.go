package filters

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/audit"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/request"
)

// impersonationPolicy: admin may impersonate anyone, anything; helper may impersonate the
// user alice, the group devs and the scopes extra "read" only; bob nothing.
func impersonationPolicy() *rbac.Policy {
	p := rbac.Bootstrap()
	p.Roles = append(p.Roles,
		rbac.Role{Name: "impersonator", Rules: []rbac.PolicyRule{
			{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{"users", "groups", "serviceaccounts"}},
			{Verbs: []string{"impersonate"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"uids", "userextras/acme.com/project"}},
		}},
		rbac.Role{Name: "alice-impersonator", Rules: []rbac.PolicyRule{
			{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{"users"}, ResourceNames: []string{"alice"}},
			{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{"groups"}, ResourceNames: []string{"devs"}},
			{Verbs: []string{"impersonate"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"userextras/scopes"}, ResourceNames: []string{"read"}},
		}},
	)
	p.Bindings = append(p.Bindings,
		rbac.Binding{Name: "admin", RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "impersonator"}, Subjects: []rbac.Subject{{Kind: "User", Name: "admin"}}},
		rbac.Binding{Name: "helper", RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "alice-impersonator"}, Subjects: []rbac.Subject{{Kind: "User", Name: "helper"}}},
	)
	return p
}

// TestWithImpersonation serves requests with Impersonate-* headers through audit and
// impersonation, as the handler chain orders them, and checks who the handler sees, kube's
// 403 wording, and the audit event.
func TestWithImpersonation(t *testing.T) {
	z := rbac.Authorizer((*rbac.StaticPolicy)(impersonationPolicy()))
	var seen *request.User
	var headersLeft []string
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ = request.UserFrom(r.Context())
		headersLeft = nil
		for name := range r.Header {
			if strings.HasPrefix(name, "Impersonate-") {
				headersLeft = append(headersLeft, name)
			}
		}
	})
	policy, err := audit.LoadPolicy("../audit/testdata/audit-policy.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	var events bytes.Buffer
	h := audit.WithAudit(WithImpersonation(inner, z, nil), policy, audit.NewLog(&events, nil))
	serve := func(user string, headers map[string][]string) *httptest.ResponseRecorder {
		seen = nil
		r := httptest.NewRequest("GET", "/apis/db.example.com/v1/namespaces/a/databases", nil)
		for k, vs := range headers {
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r.WithContext(request.WithUser(context.Background(), &request.User{Name: user, Groups: []string{request.AllAuthenticated}})))
		return rec
	}
	status := func(rec *httptest.ResponseRecorder) metav1.Status {
		var s metav1.Status
		_ = json.Unmarshal(rec.Body.Bytes(), &s)
		return s
	}

	if serve("bob", nil); seen == nil || seen.Name != "bob" {
		t.Errorf("no headers: %+v", seen)
	}
	rec := serve("bob", map[string][]string{"Impersonate-User": {"alice"}})
	if s := status(rec); rec.Code != 403 || seen != nil || s.Reason != metav1.StatusReasonForbidden ||
		s.Message != `users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope` {
		t.Errorf("bob as alice: %d %+v", rec.Code, s)
	}
	rec = serve("helper", map[string][]string{"Impersonate-User": {"alice"}, "Impersonate-Group": {"devs", "admins"}})
	if s := status(rec); rec.Code != 403 || s.Message != `groups "admins" is forbidden: User "helper" cannot impersonate resource "groups" in API group "" at the cluster scope` {
		t.Errorf("helper as alice in admins: %d %+v", rec.Code, s)
	}
	rec = serve("helper", map[string][]string{"Impersonate-User": {"alice"}, "Impersonate-Extra-Scopes": {"read", "write"}})
	if s := status(rec); rec.Code != 403 || s.Message != `userextras.authentication.k8s.io "write" is forbidden: User "helper" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope` {
		t.Errorf("helper with extra write: %d %+v", rec.Code, s)
	}

	rec = serve("helper", map[string][]string{"Impersonate-User": {"alice"}, "Impersonate-Group": {"devs"}, "Impersonate-Extra-Scopes": {"read"}})
	if rec.Code != 200 || seen == nil || seen.Name != "alice" || !slices.Equal(seen.Groups, []string{"devs", request.AllAuthenticated}) ||
		!slices.Equal(seen.Extra["scopes"], []string{"read"}) || len(headersLeft) != 0 {
		t.Errorf("helper as alice: %d %+v, headers left %v", rec.Code, seen, headersLeft)
	}
	if serve("admin", map[string][]string{"Impersonate-User": {"system:serviceaccount:ci:robot"}, "Impersonate-Uid": {"u-1"},
		"Impersonate-Extra-Acme.com%2fproject": {"p"}}); seen == nil || seen.Name != "system:serviceaccount:ci:robot" || seen.UID != "u-1" ||
		!slices.Equal(seen.Groups, []string{"system:serviceaccounts", "system:serviceaccounts:ci", request.AllAuthenticated}) ||
		!slices.Equal(seen.Extra["acme.com/project"], []string{"p"}) {
		t.Errorf("admin as a service account: %+v", seen)
	}
	if serve("admin", map[string][]string{"Impersonate-User": {request.Anonymous}}); seen == nil || !slices.Equal(seen.Groups, []string{request.AllUnauthenticated}) {
		t.Errorf("admin as anonymous: %+v", seen)
	}
	if serve("admin", map[string][]string{"Impersonate-User": {"x"}, "Impersonate-Group": {request.AllUnauthenticated}}); seen == nil ||
		!slices.Equal(seen.Groups, []string{request.AllUnauthenticated}) {
		t.Errorf("admin as x, unauthenticated: %+v", seen)
	}
	rec = serve("admin", map[string][]string{"Impersonate-Group": {"devs"}})
	if s := status(rec); rec.Code != 500 || !strings.Contains(s.Message, "requested [Group devs] without impersonating a user") {
		t.Errorf("a group without a user: %d %+v", rec.Code, s)
	}

	// The audit log: user is who authenticated, impersonatedUser who the request acted as.
	var found bool
	for _, line := range bytes.Split(bytes.TrimSpace(events.Bytes()), []byte("\n")) {
		var e audit.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		if e.User.Username == "helper" && e.ImpersonatedUser != nil && e.ImpersonatedUser.Username == "alice" && e.ResponseStatus.Code == 200 {
			found = true
		}
	}
	if !found {
		t.Errorf("no event of helper impersonating alice:\n%s", events.String())
	}
}
