package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/internal/freeport"
	"github.com/apigen-dev/apigen/runtime/certs"
)

// TestDelegation runs server A as the cluster and server B as an aggregated API server that
// delegates to it (--authentication-kubeconfig, --authorization-kubeconfig), registered with
// A as the APIService of other.apigen.dev/v1: a user whose token only A knows reaches B
// directly (TokenReview at A) and through A (A's front-proxy headers, trusted by B through
// the requestheader CA of A's extension-apiserver-authentication ConfigMap); an RBAC Role at A
// decides what the user may do on B (SubjectAccessReview at A); anonymous requests are
// refused; and when A restarts with a new front-proxy CA, B follows A's ConfigMap without a
// restart: it trusts the new proxy certificate and refuses the old.
func TestDelegation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	t.Parallel()
	dir := t.TempDir()
	proxy := selfSigned(t, dir, "front-proxy")
	bPKI := filepath.Join(dir, "b-pki")
	if _, err := certs.EnsureSelfSigned(bPKI, []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")}); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("alice-token,alice,uid-alice,devs\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bPort, aPort, aDir := freeport.Port(t), freeport.Port(t), t.TempDir()
	const group = "other.apigen.dev"

	// A: the cluster, and the aggregator in front of B; it is started again below with
	// another front-proxy CA, on the same data directory and port.
	startA := func(proxy *certs.Bundle) (url, kubeconfig string, stop func()) {
		ctx, stop := context.WithCancel(context.Background())
		url, kubeconfig = startAt(t, aDir, stop, func(args []string, stdout, stderr io.Writer) int {
			return Run(ctx, "test-apiserver", append(args, "--plain-http=false", fmt.Sprintf("--secure-port=%d", aPort),
				"--token-auth-file="+tokens,
				"--requestheader-client-ca-file="+proxy.CertFile(certs.CAName), "--requestheader-allowed-names="+certs.AdminUser,
				"--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
				"--requestheader-extra-headers-prefix=X-Remote-Extra-",
				fmt.Sprintf("--proxy-endpoint=%s/v1=https://127.0.0.1:%d", group, bPort),
				"--proxy-client-cert-file="+proxy.CertFile(certs.AdminName), "--proxy-client-key-file="+proxy.KeyFile(certs.AdminName),
				"--proxy-endpoint-ca-file="+filepath.Join(bPKI, certs.CAName+".crt")),
				stdout, stderr, testGroup)
		})
		return url, kubeconfig, stop
	}
	urlA, kubeconfigA, stopA := startA(proxy)
	// B: delegates to A.
	ctxB, stopB := context.WithCancel(context.Background())
	urlB, _ := startWith(t, stopB, func(args []string, stdout, stderr io.Writer) int {
		return Run(ctxB, "test-apiserver", append(args, "--plain-http=false", fmt.Sprintf("--secure-port=%d", bPort),
			"--cert-dir="+bPKI, "--authentication-kubeconfig="+kubeconfigA, "--authorization-kubeconfig="+kubeconfigA,
			"--authorization-webhook-cache-unauthorized-ttl=100ms", "--authorization-webhook-cache-authorized-ttl=100ms"),
			stdout, stderr, widgetGroup(schema.GroupVersion{Group: group, Version: "v1"}))
	})

	caA, caB := caPool(t, filepath.Join(filepath.Dir(kubeconfigA), "pki", certs.CAName+".crt")), caPool(t, filepath.Join(bPKI, certs.CAName+".crt"))
	alice := func(ca *x509.CertPool) *http.Client {
		return &http.Client{Timeout: 10 * time.Second, Transport: &bearer{token: "alice-token",
			rt: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca}}}}
	}
	anonymous := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caB}}}
	widgets := "/apis/" + group + "/v1/namespaces/default/widgets"

	// Anonymous is refused; alice is known (TokenReview at A) but may do nothing yet.
	if code, body := get(t, anonymous, urlB+widgets); code != http.StatusUnauthorized {
		t.Errorf("anonymous at B: %d %s, want 401", code, body)
	}
	st := waitForCode(t, alice(caB), urlB+widgets, http.StatusForbidden)
	if !strings.Contains(st.Message, `User "alice"`) {
		t.Errorf("alice at B without a Role: %q, want a 403 naming alice (authenticated by A's TokenReview)", st.Message)
	}

	// A Role at A lets alice list widgets: B follows A's SubjectAccessReview answer.
	admin := kubeClient(t, kubeconfigA)
	ctx := context.Background()
	if _, err := admin.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "widget-reader"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{group}, Resources: []string{"widgets"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice-reads"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "widget-reader"},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForCode(t, alice(caB), urlB+widgets, http.StatusOK)
	if code, body := get(t, alice(caB), urlB+"/apis/"+group+"/v1/namespaces/other/widgets"); code != http.StatusForbidden {
		t.Errorf("alice at B in a namespace her Role does not cover: %d %s, want 403", code, body)
	}

	// Through A: A authenticates alice and passes her on in front-proxy headers, which B
	// trusts through the requestheader CA in A's ConfigMap.
	waitForCode(t, alice(caA), urlA+widgets, http.StatusOK)

	// A new front-proxy CA: A restarts with it and publishes it in its ConfigMap; B, running
	// on, follows the ConfigMap: it trusts A's new proxy certificate and no longer the old.
	next := selfSigned(t, dir, "front-proxy-2")
	stopA()
	waitStopped(t, aDir)
	urlA, _, _ = startA(next)
	waitForCode(t, alice(caA), urlA+widgets, http.StatusOK)
	oldProxy, err := tls.LoadX509KeyPair(proxy.CertFile(certs.AdminName), proxy.KeyFile(certs.AdminName))
	if err != nil {
		t.Fatal(err)
	}
	asOldProxy := &http.Client{Timeout: 10 * time.Second, Transport: &headers{h: http.Header{"X-Remote-User": {"alice"}},
		rt: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caB, Certificates: []tls.Certificate{oldProxy}}}}}
	waitForCode(t, asOldProxy, urlB+widgets, http.StatusUnauthorized)
}

// waitStopped waits until the server on dataDir has stopped: its data directory's lock is
// free again.
func waitStopped(t *testing.T, dataDir string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if unlock, err := lockDataDir(dataDir); err == nil {
			if err := unlock(); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("the server on %s has not stopped 30s after it was told to", dataDir)
}

// headers adds h to each request.
type headers struct {
	h  http.Header
	rt http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (hs *headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range hs.h {
		r.Header[k] = v
	}
	return hs.rt.RoundTrip(r)
}

// bearer adds a bearer token to each request.
type bearer struct {
	token string
	rt    http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

// caPool reads a PEM CA file into a pool.
func caPool(t *testing.T, path string) *x509.CertPool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		t.Fatalf("no certificate in %s", path)
	}
	return pool
}

// TestDelegatingCacheTTLFlags checks the webhook cache flags' names and defaults are
// k8s.io/apiserver's DelegatingAuthenticationOptions (CacheTTL 10s) and
// DelegatingAuthorizationOptions (AllowCacheTTL 10s, DenyCacheTTL 10s), set apart.
func TestDelegatingCacheTTLFlags(t *testing.T) {
	t.Parallel()
	o := newDelegatingOptions()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	if o.TokenWebhookCacheTTL != 10*time.Second || o.AuthorizedTTL != 10*time.Second || o.UnauthorizedTTL != 10*time.Second {
		t.Errorf("defaults: token %v, authorized %v, unauthorized %v; want 10s each", o.TokenWebhookCacheTTL, o.AuthorizedTTL, o.UnauthorizedTTL)
	}
	if err := fs.Parse([]string{"--authentication-token-webhook-cache-ttl=2m",
		"--authorization-webhook-cache-authorized-ttl=5m", "--authorization-webhook-cache-unauthorized-ttl=30s"}); err != nil {
		t.Fatal(err)
	}
	if o.TokenWebhookCacheTTL != 2*time.Minute || o.AuthorizedTTL != 5*time.Minute || o.UnauthorizedTTL != 30*time.Second {
		t.Errorf("set: token %v, authorized %v, unauthorized %v", o.TokenWebhookCacheTTL, o.AuthorizedTTL, o.UnauthorizedTTL)
	}
}
