package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/certs"
)

// TestAggregation runs two servers, as issue 6 asks: the second serves other.apigen.dev
// itself and aggregates test.apigen.dev/v1 from the first through --proxy-endpoint, passing
// the caller on in front-proxy headers. kubectl against the second lists both groups and
// creates through it an object the first stores; once the first stops, the second answers
// 503 for that group only and reports the APIService unavailable.
func TestAggregation(t *testing.T) {
	dir := t.TempDir()
	proxy, err := certs.EnsureSelfSigned(filepath.Join(dir, "front-proxy"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctxA, stopA := context.WithCancel(context.Background())
	urlA, kubeconfigA := startWith(t, stopA, func(args []string, stdout, stderr io.Writer) int {
		return Run(ctxA, "test-apiserver", append(args, "--plain-http=false",
			"--requestheader-client-ca-file="+proxy.CertFile(certs.CAName), "--requestheader-allowed-names="+certs.AdminUser),
			stdout, stderr, testGroup)
	})
	caA := filepath.Join(filepath.Dir(kubeconfigA), "pki", "ca.crt")
	urlB, kubeconfigB := startArgs(t, []string{"--plain-http=false",
		"--proxy-endpoint=test.apigen.dev/v1=" + urlA,
		"--proxy-client-cert-file=" + proxy.CertFile(certs.AdminName), "--proxy-client-key-file=" + proxy.KeyFile(certs.AdminName),
		"--proxy-endpoint-ca-file=" + caA},
		widgetGroup(schema.GroupVersion{Group: "other.apigen.dev", Version: "v1"}))

	client := adminClient(t, kubeconfigB)
	const proxied, local = "/apis/test.apigen.dev/v1/namespaces/default/widgets", "/apis/other.apigen.dev/v1/namespaces/default/widgets"
	waitForCode(t, client, urlB+proxied, http.StatusOK)

	out := runKubectl(t, kubeconfigB, "api-resources")
	for _, want := range []string{`(?m)^widgets\s+test\.apigen\.dev/v1\s+true\s+Widget$`, `(?m)^widgets\s+other\.apigen\.dev/v1\s+true\s+Widget$`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("kubectl api-resources against the aggregator lacks %s:\n%s", want, out)
		}
	}
	manifest := filepath.Join(dir, "widget.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: through-b\n  namespace: default\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runKubectl(t, kubeconfigB, "create", "-f", manifest)
	if got := runKubectl(t, kubeconfigA, "get", "widgets.test.apigen.dev", "through-b", "-o", "jsonpath={.metadata.name}"); got != "through-b" {
		t.Errorf("the first server does not have the widget created through the second: %q", got)
	}
	if out := runKubectl(t, kubeconfigB, "get", "widgets.test.apigen.dev"); !strings.Contains(out, "through-b") {
		t.Errorf("listing through the aggregator: %s", out)
	}

	stopA()
	// At once the proxy cannot reach the backend (503); within a check interval the
	// APIService is marked unavailable and requests are refused without trying.
	status := waitForCode(t, client, urlB+proxied, http.StatusServiceUnavailable)
	if status.Reason != metav1.StatusReasonServiceUnavailable {
		t.Errorf("proxied group with its backend down: %+v", status)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, body := get(t, client, urlB+"/metrics")
		if strings.Contains(body, `aggregator_unavailable_apiservice{name="v1.test.apigen.dev"} 1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/metrics did not report v1.test.apigen.dev unavailable within 30s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if status := waitForCode(t, client, urlB+proxied, http.StatusServiceUnavailable); status.Message != "service unavailable" {
		t.Errorf("unavailable APIService: %+v", status)
	}
	if code, body := get(t, client, urlB+local); code != http.StatusOK {
		t.Errorf("the aggregator's own group is affected: %d %s", code, body)
	}
}

// adminClient returns an HTTPS client with the CA and admin certificate of a kubeconfig the
// server wrote in its data directory.
func adminClient(t *testing.T, kubeconfig string) *http.Client {
	t.Helper()
	pki := filepath.Join(filepath.Dir(kubeconfig), "pki")
	caPEM, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	admin, err := tls.LoadX509KeyPair(filepath.Join(pki, "admin.crt"), filepath.Join(pki, "admin.key"))
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{admin}}}}
}

// get returns the status code and body of GET url.
func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// waitForCode polls url until it answers code (at most 30s) and returns the Status it wrote.
func waitForCode(t *testing.T, c *http.Client, url string, code int) metav1.Status {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, body := get(t, c, url)
		if got == code {
			var s metav1.Status
			_ = json.Unmarshal([]byte(body), &s)
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d %s; waited 30s for %d", url, got, body, code)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
