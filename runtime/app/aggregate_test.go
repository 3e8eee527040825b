package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
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

// TestAggregation runs two servers: the second serves other.apigen.dev
// itself and aggregates test.apigen.dev/v1 from the first through the APIService its
// --proxy-endpoint registers, passing the caller on in front-proxy headers. kubectl against
// the second lists both groups, shows the APIServices (Local ones for its own groups) and
// creates through it an object the first stores. An APIService created with kubectl while it
// runs starts proxying another group of the first at once and stops when deleted; one naming
// an unknown service is Available=False (ServiceNotFound). Once the first stops, the second
// answers 503 for its groups only and reports the APIService unavailable.
func TestAggregation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proxy := selfSigned(t, dir, "front-proxy")
	ctxA, stopA := context.WithCancel(context.Background())
	urlA, kubeconfigA := startWith(t, stopA, func(args []string, stdout, stderr io.Writer) int {
		return Run(ctxA, "test-apiserver", append(args, "--plain-http=false",
			"--requestheader-client-ca-file="+proxy.CertFile(certs.CAName), "--requestheader-allowed-names="+certs.AdminUser),
			stdout, stderr, testGroup, widgetGroup(schema.GroupVersion{Group: "third.apigen.dev", Version: "v1"}))
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

	// The APIServices: the one --proxy-endpoint made, and Local ones for the second's groups.
	waitForAPIService(t, kubeconfigB, "v1.test.apigen.dev", `kube-system/apigen-proxy-endpoint-0\s+True\s`)
	waitForAPIService(t, kubeconfigB, "v1.other.apigen.dev", `Local\s+True\s`)
	waitForAPIService(t, kubeconfigB, "v1.apiregistration.k8s.io", `Local\s+True\s`)

	// An APIService created while the server runs is proxied without a restart: the first
	// server's third.apigen.dev, through the service the --proxy-endpoint stands for.
	const third = "/apis/third.apigen.dev/v1/namespaces/default/widgets"
	if code, body := get(t, client, urlB+third); code != http.StatusNotFound {
		t.Errorf("third.apigen.dev before its APIService: %d %s", code, body)
	}
	caPEM, err := os.ReadFile(caA)
	if err != nil {
		t.Fatal(err)
	}
	portA := urlA[strings.LastIndex(urlA, ":")+1:]
	apiServiceManifest := filepath.Join(dir, "apiservice.yaml")
	if err := os.WriteFile(apiServiceManifest, []byte(`apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1.third.apigen.dev
spec:
  group: third.apigen.dev
  version: v1
  groupPriorityMinimum: 100
  versionPriority: 10
  caBundle: `+base64.StdEncoding.EncodeToString(caPEM)+`
  service:
    namespace: kube-system
    name: apigen-proxy-endpoint-0
    port: `+portA+`
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1.nowhere.apigen.dev
spec:
  group: nowhere.apigen.dev
  version: v1
  groupPriorityMinimum: 100
  versionPriority: 10
  service:
    namespace: default
    name: nowhere
`), 0o600); err != nil {
		t.Fatal(err)
	}
	runKubectl(t, kubeconfigB, "create", "-f", apiServiceManifest)
	waitForCode(t, client, urlB+third, http.StatusOK)
	waitForAPIService(t, kubeconfigB, "v1.third.apigen.dev", `kube-system/apigen-proxy-endpoint-0\s+True\s`)
	waitForAPIService(t, kubeconfigB, "v1.nowhere.apigen.dev", `default/nowhere\s+False \(ServiceNotFound\)\s`)
	if status := waitForCode(t, client, urlB+"/apis/nowhere.apigen.dev/v1/things", http.StatusServiceUnavailable); status.Reason != metav1.StatusReasonServiceUnavailable {
		t.Errorf("APIService of an unknown service: %+v", status)
	}
	// kubectl api-resources fails while a group is unavailable, as against kube-apiserver.
	runKubectl(t, kubeconfigB, "delete", "apiservice", "v1.nowhere.apigen.dev")
	waitForCode(t, client, urlB+"/apis/nowhere.apigen.dev/v1/things", http.StatusNotFound)
	if out := runKubectl(t, kubeconfigB, "api-resources"); !regexp.MustCompile(`(?m)^widgets\s+third\.apigen\.dev/v1\s+true\s+Widget$`).MatchString(out) {
		t.Errorf("kubectl api-resources lacks the APIService made while running:\n%s", out)
	}
	runKubectl(t, kubeconfigB, "delete", "apiservice", "v1.third.apigen.dev")
	waitForCode(t, client, urlB+third, http.StatusNotFound)

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
	// The gauge is set before the condition is written (as kube-aggregator's availability
	// controller does), and the proxy learns the condition from its watch: poll until it
	// refuses without trying.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		code, body := get(t, client, urlB+proxied)
		var status metav1.Status
		_ = json.Unmarshal([]byte(body), &status)
		if code == http.StatusServiceUnavailable && status.Message == "service unavailable" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("unavailable APIService still proxied after 30s: %d %s", code, body)
		}
	}
	if code, body := get(t, client, urlB+local); code != http.StatusOK {
		t.Errorf("the aggregator's own group is affected: %d %s", code, body)
	}
	waitForAPIService(t, kubeconfigB, "v1.test.apigen.dev", `kube-system/apigen-proxy-endpoint-0\s+False \(FailedDiscoveryCheck\)\s`)
	if out := runKubectl(t, kubeconfigB, "get", "apiservice", "v1.test.apigen.dev", "-o", "jsonpath={.status.conditions[0].message}"); !strings.Contains(out, "failing or missing response from") {
		t.Errorf("Available condition message: %q", out)
	}
}

// waitForAPIService polls `kubectl get apiservice name` until its row matches pattern (after
// the name), at most 30s.
func waitForAPIService(t *testing.T, kubeconfig, name, pattern string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s+` + pattern)
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := runKubectl(t, kubeconfig, "get", "apiservices")
		if re.MatchString(out) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl get apiservices: no row %s within 30s:\n%s", re, out)
		}
		time.Sleep(300 * time.Millisecond)
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

// waitForCode polls url until it answers code (at most 90s) and returns the Status it wrote.
func waitForCode(t *testing.T, c *http.Client, url string, code int) metav1.Status {
	t.Helper()
	// A bound for a loaded machine (CI runs this under the race detector beside other
	// packages): the aggregator checks an APIService every 5 s, each check up to 5 s.
	const wait = 90 * time.Second
	deadline := time.Now().Add(wait)
	for {
		got, body := get(t, c, url)
		if got == code {
			var s metav1.Status
			_ = json.Unmarshal([]byte(body), &s)
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d %s; waited %v for %d", url, got, body, wait, code)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestAggregationPlainHTTP checks the APIService API in --plain-http mode, where no caller is
// known to pass on: APIServices are served (a Local one for each served group version), but
// one naming a service is Available=False (ProxyDisabled) and its group version answers 503.
// With --runtime-config=apiregistration.k8s.io/v1=false the API is not served.
func TestAggregationPlainHTTP(t *testing.T) {
	url, kubeconfig := start(t, testGroup)
	client := &http.Client{Timeout: 10 * time.Second}
	if out := runKubectl(t, kubeconfig, "explain", "apiservices.spec.service.port"); !strings.Contains(out, "443") {
		t.Errorf("kubectl explain apiservices.spec.service.port:\n%s", out)
	}
	body := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.remote.apigen.dev"},
		"spec":{"group":"remote.apigen.dev","version":"v1","groupPriorityMinimum":100,"versionPriority":10,
		"service":{"namespace":"default","name":"remote"}}}`
	resp, err := client.Post(url+"/apis/apiregistration.k8s.io/v1/apiservices", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	created, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || !strings.Contains(string(created), `"port":443`) {
		t.Fatalf("create: %d %s", resp.StatusCode, created)
	}
	wants := []struct{ name, condition string }{
		{"v1.remote.apigen.dev", `"reason":"ProxyDisabled","message":"the server serves plain HTTP`},
		{"v1.test.apigen.dev", `"status":"True","lastTransitionTime":"[^"]+","reason":"Local"`},
	}
	if _, api := get(t, client, url+"/api"); strings.Contains(api, `"versions":["v1"]`) { // the core group, as kube's "v1."
		wants = append(wants, struct{ name, condition string }{"v1.", `"status":"True","lastTransitionTime":"[^"]+","reason":"Local"`})
	} else {
		t.Logf("no core group in /api: %s", api)
	}
	for _, want := range wants {
		re := regexp.MustCompile(want.condition)
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, got := get(t, client, url+"/apis/apiregistration.k8s.io/v1/apiservices/"+want.name)
			if re.MatchString(got) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("APIService %s: no condition %s within 30s: %s", want.name, re, got)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if status := waitForCode(t, client, url+"/apis/remote.apigen.dev/v1/things", http.StatusServiceUnavailable); status.Message != "service unavailable" {
		t.Errorf("proxying refused: %+v", status)
	}
	if code, body := get(t, client, url+"/apis/test.apigen.dev/v1/namespaces/default/widgets"); code != http.StatusOK {
		t.Errorf("local group: %d %s", code, body)
	}

	off, _ := startArgs(t, []string{"--plain-http", "--runtime-config=apiregistration.k8s.io/v1=false"}, testGroup)
	if code, body := get(t, client, off+"/apis/apiregistration.k8s.io/v1/apiservices"); code != http.StatusNotFound {
		t.Errorf("apiregistration.k8s.io/v1 turned off: %d %s", code, body)
	}
}
