package e2e

import (
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/apigen-dev/apigen/runtime/certs"
)

// countingTransport records the paths of the requests it carries.
type countingTransport struct {
	next  http.RoundTripper
	mu    sync.Mutex
	paths []string
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.paths = append(c.paths, r.URL.Path)
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

// TestAggregatedDiscoveryAndProxiedOpenAPI runs a backend example-apiserver serving the
// CronTab CRD and a front one that proxies stable.example.com/v1 to it (--proxy-endpoint) and
// serves a CRD of its own. client-go's discovery of the front gets every group and resource
// (its own, its CRD's, and the proxied CronTabs) from /api and /apis alone, in aggregated
// discovery, and kubectl explain works on the proxied resource, whose OpenAPI v3 document the
// front serves from the backend.
func TestAggregatedDiscoveryAndProxiedOpenAPI(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	proxy, err := certs.EnsureSelfSigned(filepath.Join(t.TempDir(), "front-proxy"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	backend := startServer(t, "--requestheader-client-ca-file="+proxy.CertFile(certs.CAName), "--requestheader-allowed-names="+certs.AdminUser)
	backend.mustKubectl(t, "apply", "-f", filepath.Join(crdsDir, "crontab.yaml"))
	backend.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com")
	front := startServer(t, "--proxy-endpoint=stable.example.com/v1="+backend.proc.URL,
		"--proxy-client-cert-file="+proxy.CertFile(certs.AdminName), "--proxy-client-key-file="+proxy.KeyFile(certs.AdminName),
		"--proxy-endpoint-ca-file="+filepath.Join(filepath.Dir(backend.kubeconfig), "pki", "ca.crt"))
	front.mustKubectl(t, "apply", "-f", writeCRDManifest(t, "gadgets.yaml", clusterCRD("gadgets", "Gadget")))
	front.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=10s", "crd/gadgets.paint.example.com")
	waitForAPIServiceRow(t, front, "v1.stable.example.com", `kube-system/apigen-proxy-endpoint-0\s+True\s`)

	counter := &countingTransport{}
	cfg := rest.CopyConfig(front.config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
	client, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		counter.paths = nil
		_, lists, err := client.ServerGroupsAndResources()
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, l := range lists {
			for _, r := range l.APIResources {
				found[l.GroupVersion+" "+r.Name] = true
			}
		}
		want := []string{"stable.example.com/v1 crontabs", "stable.example.com/v1 crontabs/scale", "paint.example.com/v1 gadgets",
			"db.example.com/v1 databases", "db.example.com/v1 databases/status", "v1 namespaces", "apiregistration.k8s.io/v1 apiservices"}
		missing := slices.DeleteFunc(slices.Clone(want), func(w string) bool { return found[w] })
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("discovery of the front lacks %v", missing)
		}
		time.Sleep(300 * time.Millisecond)
	}
	slices.Sort(counter.paths)
	if !slices.Equal(counter.paths, []string{"/api", "/apis"}) {
		t.Errorf("ServerGroupsAndResources requested %v, want /api and /apis only (aggregated discovery)", counter.paths)
	}

	deadline = time.Now().Add(30 * time.Second)
	for {
		out, err := front.kubectl(t, "explain", "crontab.spec")
		if err == nil && strings.Contains(out, "cronSpec") && strings.Contains(out, "GROUP:      stable.example.com") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl explain crontab.spec through the front: %v\n%s", err, out)
		}
		time.Sleep(300 * time.Millisecond)
	}
}
