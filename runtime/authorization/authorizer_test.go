package authorization_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/request"
)

func TestUnionFirstDecisionWins(t *testing.T) {
	called := false
	never := authorization.AuthorizerFunc(func(context.Context, authorization.Attributes) (authorization.Decision, string, error) {
		called = true
		return authorization.Allow, "", nil
	})
	noOpinion := authorization.AuthorizerFunc(func(context.Context, authorization.Attributes) (authorization.Decision, string, error) {
		return authorization.NoOpinion, "webhook down", errors.New("timeout")
	})
	d, _, _ := authorization.Union(noOpinion, authorization.AlwaysDeny(), never).Authorize(context.Background(), authorization.Attributes{})
	if d != authorization.Deny || called {
		t.Errorf("decision %v, later authorizer called %v; want Deny from the second, the third not asked", d, called)
	}
	d, reason, err := authorization.Union(noOpinion, noOpinion).Authorize(context.Background(), authorization.Attributes{})
	if d != authorization.NoOpinion || reason != "webhook down; webhook down" || err == nil {
		t.Errorf("no decision: %v %q %v", d, reason, err)
	}
}

// TestWithAuthorization serves through token authentication and RBAC: bob can list
// databases in team-a and nothing else, with kube-apiserver's 403 wording for the rest.
func TestWithAuthorization(t *testing.T) {
	tokens, err := auth.ParseTokenFile(strings.NewReader("bob-token,bob,u1\nadmin-token,admin,u2,system:masters\n"))
	if err != nil {
		t.Fatal(err)
	}
	policy := rbac.Bootstrap()
	policy.Roles = append(policy.Roles, rbac.Role{Namespace: "team-a", Name: "reader", Rules: []rbac.PolicyRule{
		{Verbs: []string{"get", "list"}, APIGroups: []string{"db.example.com"}, Resources: []string{"databases"}}}})
	policy.Bindings = append(policy.Bindings, rbac.Binding{Namespace: "team-a", Name: "bob", RoleRef: rbac.RoleRef{Kind: "Role", Name: "reader"},
		Subjects: []rbac.Subject{{Kind: "User", Name: "bob"}}})
	authn := auth.FailOnError(auth.WithAuthenticatedGroup(auth.BearerToken(tokens)), auth.AnonymousAuthenticator())
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	srv := httptest.NewServer(auth.WithAuthentication(
		authorization.WithAuthorization(ok, rbac.Authorizer((*rbac.StaticPolicy)(policy)), nil), authn, nil, nil))
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		token, method, path string
		code                int
		message             string
	}{
		{"bob-token", "GET", "/apis/db.example.com/v1/namespaces/team-a/databases", 200, ""},
		{"bob-token", "GET", "/apis/db.example.com/v1/namespaces/team-a/databases/main", 200, ""},
		{"bob-token", "DELETE", "/apis/db.example.com/v1/namespaces/team-a/databases/main", 403,
			`databases.db.example.com "main" is forbidden: User "bob" cannot delete resource "databases" in API group "db.example.com" in the namespace "team-a"`},
		{"bob-token", "GET", "/apis/db.example.com/v1/namespaces/team-b/databases", 403,
			`databases.db.example.com is forbidden: User "bob" cannot list resource "databases" in API group "db.example.com" in the namespace "team-b"`},
		{"bob-token", "GET", "/apis/db.example.com/v1/backups", 403,
			`backups.db.example.com is forbidden: User "bob" cannot list resource "backups" in API group "db.example.com" at the cluster scope`},
		{"bob-token", "PUT", "/apis/db.example.com/v1/namespaces/team-a/databases/main/status", 403,
			`databases.db.example.com "main" is forbidden: User "bob" cannot update resource "databases/status" in API group "db.example.com" in the namespace "team-a"`},
		{"bob-token", "GET", "/metrics", 403, `forbidden: User "bob" cannot get path "/metrics"`},
		{"bob-token", "GET", "/healthz", 200, ""},
		{"", "GET", "/readyz", 200, ""},
		{"", "GET", "/apis", 403, `forbidden: User "system:anonymous" cannot get path "/apis"`},
		{"wrong", "GET", "/healthz", 401, "Unauthorized"},
		{"admin-token", "DELETE", "/apis/db.example.com/v1/namespaces/team-b/databases", 200, ""},
		{"admin-token", "GET", "/apis/db.example.com/v1/namespaces//databases", 400, ""},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var status metav1.Status
		_ = json.NewDecoder(resp.Body).Decode(&status)
		resp.Body.Close()
		if resp.StatusCode != tc.code || (tc.message != "" && status.Message != tc.message) {
			t.Errorf("%s %s %s: %d %q, want %d %q", tc.token, tc.method, tc.path, resp.StatusCode, status.Message, tc.code, tc.message)
		}
		if tc.code == 403 && status.Reason != metav1.StatusReasonForbidden {
			t.Errorf("%s %s: reason %q, want Forbidden", tc.method, tc.path, status.Reason)
		}
	}
}

// TestWithAuthorizationError: no authorizer allowing while one failed is 500, as
// kube-apiserver; an allow despite another's failure serves the request.
func TestWithAuthorizationError(t *testing.T) {
	failing := authorization.AuthorizerFunc(func(context.Context, authorization.Attributes) (authorization.Decision, string, error) {
		return authorization.NoOpinion, "", errors.New("webhook unreachable")
	})
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, tc := range []struct {
		z    authorization.Authorizer
		code int
	}{
		{authorization.Union(failing), http.StatusInternalServerError},
		{authorization.Union(failing, authorization.AlwaysAllow()), http.StatusOK},
		{authorization.Union(authorization.AlwaysDeny(), failing), http.StatusForbidden},
	} {
		h := authorization.WithAuthorization(ok, tc.z, nil)
		r := httptest.NewRequest("GET", "/apis/db.example.com/v1/databases", nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r.WithContext(request.WithUser(r.Context(), &request.User{Name: "bob"})))
		if rec.Code != tc.code || (tc.code == 500 && !strings.Contains(rec.Body.String(), "webhook unreachable")) {
			t.Errorf("%d %s, want %d", rec.Code, rec.Body, tc.code)
		}
	}
}

// TestPrivilegedGroups checks that members are allowed anything and others left to the next
// authorizer.
func TestPrivilegedGroups(t *testing.T) {
	z := authorization.Union(authorization.PrivilegedGroups(request.SystemPrivilegedGroup), authorization.AlwaysDeny())
	admin := &request.User{Name: "system:apiserver", Groups: []string{request.SystemPrivilegedGroup}}
	bob := &request.User{Name: "bob", Groups: []string{"devs"}}
	if d, _, _ := z.Authorize(context.Background(), authorization.Attributes{User: admin}); d != authorization.Allow {
		t.Errorf("system:masters: %v, want Allow", d)
	}
	if d, _, _ := z.Authorize(context.Background(), authorization.Attributes{User: bob}); d != authorization.Deny {
		t.Errorf("bob: %v, want the next authorizer's Deny", d)
	}
	if r, _, inc, err := authorization.RulesFor(context.Background(), authorization.PrivilegedGroups(request.SystemPrivilegedGroup), bob, ""); len(r) != 0 || inc || err != nil {
		t.Errorf("bob's rules: %v %v %v, want none, complete", r, inc, err)
	}
}
