package oidc

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/runtime/auth/oidc/oidctest"
	"github.com/apigen-dev/apigen/runtime/request"
)

// waitHealthy polls until a has its issuers' keys (bounded).
func waitHealthy(t *testing.T, a *Authenticator) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for a.HealthCheck() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("issuer not reachable: %v", a.HealthCheck())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// authenticate sends token as a bearer token through a.
func authenticate(a *Authenticator, token string) (*request.User, bool, error) {
	r, _ := http.NewRequest(http.MethodGet, "https://127.0.0.1/api", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return a.AuthenticateRequest(r)
}

func TestAuthenticateTokens(t *testing.T) {
	t.Parallel()
	is := oidctest.New(t)
	other := oidctest.New(t)
	c, err := ParseConfig([]byte(configYAML(is, "apigen")))
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(t.Context(), c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, a)

	good := map[string]any{"hd": "example.com", "groups": []string{"dev", "ops"}, "tenant": "blue"}
	with := func(extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range good {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}

	u, ok, err := authenticate(a, is.Token(t, good))
	if err != nil || !ok {
		t.Fatalf("valid token: ok %v, err %v", ok, err)
	}
	if u.Name != "oidc:alice" || !slices.Equal(u.Groups, []string{"oidc:dev", "oidc:ops"}) || u.UID != "uid-alice" ||
		!slices.Equal(u.Extra["example.com/tenant"], []string{"blue"}) {
		t.Errorf("mapped user = %+v; want oidc:alice in oidc:dev, oidc:ops, uid uid-alice, tenant blue", u)
	}

	for _, tc := range []struct {
		name, token, want string
	}{
		{"expired", is.Token(t, with(map[string]any{"exp": time.Now().Add(-time.Minute).Unix(), "iat": time.Now().Add(-time.Hour).Unix()})), "expired"},
		{"wrong audience", is.Token(t, with(map[string]any{"aud": "someone-else"})), "audience"},
		{"wrong issuer", other.Token(t, good), "invalid bearer token"},
		{"forged issuer claim", func() string {
			// Signed by another issuer's key but claiming ours: the JWKS has no such key.
			tok := other.Token(t, with(map[string]any{"iss": is.URL()}))
			return tok
		}(), "verify token"},
		{"claim rule", is.Token(t, with(map[string]any{"hd": "evil.com"})), "the hosted domain must be example.com"},
		{"user rule", is.Token(t, with(map[string]any{"sub": "system:admin"})), "system names are reserved"},
		{"not a JWT", "abc.def", "invalid bearer token"},
	} {
		u, ok, err := authenticate(a, tc.token)
		if ok || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: user %v, ok %v, err %v; want an error containing %q", tc.name, u, ok, err, tc.want)
		}
	}

	// A request without a bearer token is not the authenticator's kind.
	r, _ := http.NewRequest(http.MethodGet, "https://127.0.0.1/api", nil)
	if u, ok, err := a.AuthenticateRequest(r); u != nil || ok || err != nil {
		t.Errorf("no token: %v %v %v; want nil, false, nil", u, ok, err)
	}
}

func TestKeyRotation(t *testing.T) {
	t.Parallel()
	is := oidctest.New(t)
	c, err := ParseConfig([]byte(configYAML(is, "apigen")))
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(t.Context(), c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, a)
	claims := map[string]any{"hd": "example.com"}
	old := is.Token(t, claims)
	if _, ok, err := authenticate(a, old); !ok {
		t.Fatalf("token before rotation refused: %v", err)
	}
	is.Rotate(t)
	fresh := is.Token(t, claims)
	if _, ok, err := authenticate(a, fresh); !ok {
		t.Fatalf("token signed with the new key refused: %v", err)
	}
	if _, ok, err := authenticate(a, old); ok || err == nil {
		t.Fatalf("token signed with the retired key accepted (ok %v, err %v)", ok, err)
	}
}

func TestLegacyFlags(t *testing.T) {
	t.Parallel()
	is := oidctest.New(t)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte(is.CAPEM()), 0o600); err != nil {
		t.Fatal(err)
	}
	o := LegacyOptions{IssuerURL: is.URL(), ClientID: "kubectl", CAFile: caFile, GroupsClaim: "groups",
		GroupsPrefix: "corp:", RequiredClaims: map[string]string{"hd": "example.com"}}
	c, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(t.Context(), c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, a)
	u, ok, err := authenticate(a, is.Token(t, map[string]any{"aud": "kubectl", "hd": "example.com", "groups": []string{"dev"}}))
	if !ok {
		t.Fatalf("valid token refused: %v", err)
	}
	// Without --oidc-username-prefix, a claim other than email is prefixed with the issuer URL.
	if u.Name != is.URL()+"#alice" || !slices.Equal(u.Groups, []string{"corp:dev"}) {
		t.Errorf("user = %+v; want %s#alice in corp:dev", u, is.URL())
	}
	if _, ok, err := authenticate(a, is.Token(t, map[string]any{"aud": "kubectl", "hd": "other.com"})); ok || err == nil {
		t.Errorf("token without the required claim value accepted")
	}

	o.UsernamePrefix = "-"
	if c, err := o.Config(); err != nil || *c.JWT[0].ClaimMappings.Username.Prefix != "" {
		t.Errorf("--oidc-username-prefix=- should mean no prefix: %v", err)
	}
	if _, err := (&LegacyOptions{IssuerURL: is.URL()}).Config(); err == nil || !strings.Contains(err.Error(), "--oidc-client-id") {
		t.Errorf("issuer without client ID: err %v", err)
	}
	if _, err := (&LegacyOptions{IssuerURL: "http://127.0.0.1", ClientID: "x"}).Config(); err == nil || !strings.Contains(err.Error(), "https") {
		t.Errorf("http issuer: err %v; want kube's https requirement", err)
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "  \n", "empty config data"},
		{"unknown field", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwtt: []\n", `unknown field "jwtt"`},
		{"wrong kind", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n", "AuthenticationConfiguration"},
		{"bad CEL", `apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer: {url: "https://127.0.0.1:1", audiences: [a]}
  claimMappings: {username: {expression: "claims.sub +"}}
`, "compilation failed"},
		{"anonymous", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous: {enabled: true}\n", "--anonymous-auth"},
	} {
		if _, err := ParseConfig([]byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v; want one containing %q", tc.name, err, tc.want)
		}
	}
}

// syncBuffer is a log destination safe for the reloader's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestReloadOnChange(t *testing.T) {
	t.Parallel()
	first, second := oidctest.New(t), oidctest.New(t)
	path := filepath.Join(t.TempDir(), "auth.yaml")
	if err := os.WriteFile(path, []byte(configYAML(first, "apigen")), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	a, err := NewFromFile(ctx, path, 20*time.Millisecond, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, a)
	claims := map[string]any{"hd": "example.com"}
	if _, ok, err := authenticate(a, first.Token(t, claims)); !ok {
		t.Fatalf("first issuer's token refused: %v", err)
	}

	// An invalid file is logged and the last good configuration kept.
	if err := os.WriteFile(path, []byte("kind: AuthenticationConfiguration\napiVersion: apiserver.config.k8s.io/v1\njwt: [{}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	poll(t, func() bool { return strings.Contains(logs.String(), "invalid --authentication-config") })
	if _, ok, err := authenticate(a, first.Token(t, claims)); !ok {
		t.Fatalf("after an invalid file the last good configuration should serve: %v", err)
	}

	// A new issuer and audience take effect without a restart; the old issuer is no longer trusted.
	if err := os.WriteFile(path, []byte(configYAML(second, "other-audience")), 0o600); err != nil {
		t.Fatal(err)
	}
	claims["aud"] = "other-audience"
	poll(t, func() bool { _, ok, _ := authenticate(a, second.Token(t, claims)); return ok })
	if _, ok, _ := authenticate(a, first.Token(t, claims)); ok {
		t.Errorf("the removed issuer's token is still accepted")
	}
	if !strings.Contains(logs.String(), "reloaded --authentication-config") {
		t.Errorf("reload not logged: %s", logs.String())
	}
}

// poll waits, bounded, until cond holds.
func poll(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
