package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/apigen-dev/apigen/runtime/auth/oidc/oidctest"
)

// TestRunOIDC serves with --authentication-config trusting a local issuer and checks, with
// kubectl --token, that an ID token signs in as the mapped user (kubectl auth whoami, a
// SelfSubjectReview), and that an expired token or one for another audience gets 401.
func TestRunOIDC(t *testing.T) {
	t.Parallel()
	is := oidctest.New(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "auth.yaml")
	ca := "      " + strings.ReplaceAll(strings.TrimSpace(is.CAPEM()), "\n", "\n      ")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: %s
    audiences: [apigen]
    certificateAuthority: |
%s
  claimMappings:
    username: {claim: email, prefix: "oidc:"}
    groups: {claim: groups, prefix: "oidc:"}
`, is.URL(), ca)), 0o600); err != nil {
		t.Fatal(err)
	}
	url, kubeconfig := startArgs(t, []string{"--plain-http=false", "--authentication-config=" + config}, testGroup)
	caFile := filepath.Join(filepath.Dir(kubeconfig), "pki", "ca.crt")
	// kubectl with only the CA and a token: no client certificate, which would win.
	kubectlToken := func(token string, args ...string) (string, error) {
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig=/dev/null", "--server=" + url,
			"--certificate-authority=" + caFile, "--token=" + token}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	claims := map[string]any{"email": "alice@example.com", "email_verified": true, "groups": []string{"dev"}}
	token := is.Token(t, claims)
	// The issuer's keys are fetched in the background after start: poll, bounded.
	var out string
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; {
		if out, err = kubectlToken(token, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}"); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || out != `oidc:alice@example.com ["oidc:dev","system:authenticated"]` {
		t.Fatalf("kubectl auth whoami with an ID token: %v\n%s", err, out)
	}
	claims["exp"] = time.Now().Add(-time.Minute).Unix()
	claims["iat"] = time.Now().Add(-time.Hour).Unix()
	expired := is.Token(t, claims)
	delete(claims, "exp")
	delete(claims, "iat")
	claims["aud"] = "someone-else"
	for name, token := range map[string]string{"expired": expired, "wrong audience": is.Token(t, claims)} {
		if out, err := kubectlToken(token, "auth", "whoami"); err == nil || !strings.Contains(out, "Unauthorized") {
			t.Errorf("%s token: %v\n%s; want Unauthorized", name, err, out)
		}
	}
}

// TestOIDCFlagsExclusive checks that --authentication-config and --oidc-* are refused
// together, as kube-apiserver refuses them, and that --oidc-issuer-url needs --oidc-client-id.
func TestOIDCFlagsExclusive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--authentication-config=/x.yaml", "--oidc-issuer-url=https://127.0.0.1", "--oidc-client-id=a"}, "mutually exclusive"},
		{[]string{"--oidc-issuer-url=https://127.0.0.1"}, "--oidc-client-id must be specified together"},
	} {
		o := NewOptions()
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		o.PlainHTTP = false
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want an error containing %q", tc.args, err, tc.want)
		}
	}
}
