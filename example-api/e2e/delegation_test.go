package e2e

import (
	"context"
	"crypto/x509"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/cert"

	"github.com/apigen-dev/apigen/runtime/certs"
)

// TestDelegatingAuthenticationConfig reads the server's
// kube-system/extension-apiserver-authentication with k8s.io/apiserver's own controllers, the
// ones a delegating (aggregated) API server runs against the cluster it authenticates through
// (DelegatingAuthenticationOptions): the client CA bundle verifies the kubeconfig's admin
// certificate, the request-header CA verifies the front proxy's client certificate, and the
// header and allowed names are the server's --requestheader-* flags.
func TestDelegatingAuthenticationConfig(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	proxy, err := certs.EnsureSelfSigned(filepath.Join(t.TempDir(), "front-proxy"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "--requestheader-client-ca-file="+proxy.CertFile(certs.CAName), "--requestheader-allowed-names=front-proxy-client",
		"--requestheader-group-headers=X-Remote-Group,X-Group")
	client, err := kubernetes.NewForConfig(s.config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const namespace, name = "kube-system", "extension-apiserver-authentication"

	verifies := func(key, certFile string) {
		t.Helper()
		ca, err := dynamiccertificates.NewDynamicCAFromConfigMapController(key, namespace, name, key, client)
		if err != nil {
			t.Fatal(err)
		}
		go ca.Run(ctx, 1)
		var opts x509.VerifyOptions
		for ok := false; !ok; {
			if opts, ok = ca.VerifyOptions(); !ok {
				if ctx.Err() != nil {
					t.Fatalf("%s: no CA bundle loaded from %s/%s", key, namespace, name)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		leaf, err := cert.CertsFromFile(certFile)
		if err != nil {
			t.Fatal(err)
		}
		opts.KeyUsages = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		if _, err := leaf[0].Verify(opts); err != nil {
			t.Errorf("%s does not verify %s: %v", key, certFile, err)
		}
	}
	verifies("client-ca-file", filepath.Join(filepath.Dir(s.kubeconfig), "pki", "admin.crt"))
	verifies("requestheader-client-ca-file", proxy.CertFile(certs.AdminName))

	headers := headerrequest.NewRequestHeaderAuthRequestController(name, namespace, client, "requestheader-username-headers",
		"requestheader-uid-headers", "requestheader-group-headers", "requestheader-extra-headers-prefix", "requestheader-allowed-names")
	if err := headers.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	got := [][]string{headers.UsernameHeaders(), headers.GroupHeaders(), headers.ExtraHeaderPrefixes(), headers.AllowedClientNames()}
	want := [][]string{{"X-Remote-User"}, {"X-Remote-Group", "X-Group"}, {"X-Remote-Extra-"}, {"front-proxy-client"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request headers (-want +got):\n%s", diff)
	}
	if uid := headers.UIDHeaders(); len(uid) != 0 {
		t.Errorf("uid headers %q: the server has no --requestheader-uid-headers", uid)
	}
}
