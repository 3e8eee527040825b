package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/runtime/certs"
)

// TestAggregationAPIService runs two example-apiserver processes: the second aggregates the
// first's db.example.com/v1 through the APIService its --proxy-endpoint registers (kube's
// APIService for a group version served elsewhere wins over its own copy of the group, which
// keeps serving v1alpha1 locally). A Database created through the second is stored by the
// first, and a watch through the second streams the first's changes; `kubectl get
// apiservices` shows the proxied APIService Available and Local ones for the rest; once the
// first stops, the APIService turns Available=False (FailedDiscoveryCheck), its group version
// answers 503, and the second's own groups are unaffected.
func TestAggregationAPIService(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	proxy, err := certs.EnsureSelfSigned(filepath.Join(t.TempDir(), "front-proxy"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := startServer(t, "--requestheader-client-ca-file="+proxy.CertFile(certs.CAName), "--requestheader-allowed-names="+certs.AdminUser)
	caA := filepath.Join(filepath.Dir(a.kubeconfig), "pki", "ca.crt")
	b := startServer(t, "--proxy-endpoint=db.example.com/v1="+a.proc.URL,
		"--proxy-client-cert-file="+proxy.CertFile(certs.AdminName), "--proxy-client-key-file="+proxy.KeyFile(certs.AdminName),
		"--proxy-endpoint-ca-file="+caA)

	waitForAPIServiceRow(t, b, "v1.db.example.com", `kube-system/apigen-proxy-endpoint-0\s+True\s`)
	waitForAPIServiceRow(t, b, "v1alpha1.db.example.com", `Local\s+True\s`)
	waitForAPIServiceRow(t, b, "v1.rbac.authorization.k8s.io", `Local\s+True\s`)

	b.mustKubectl(t, "create", "-f", filepath.Join(samplesDir, "db_v1_database.yaml"))
	if got := a.mustKubectl(t, "get", "databases.v1.db.example.com", "orders", "-o", "jsonpath={.spec.engine}"); got != "postgres" {
		t.Errorf("the first server lacks the Database created through the second: %q", got)
	}
	if out := b.mustKubectl(t, "get", "databases.v1.db.example.com"); !strings.Contains(out, "orders") {
		t.Errorf("listing through the aggregator: %s", out)
	}

	// A watch through the aggregator streams the first server's events as they happen.
	lines := b.watchLines(t, "get", "databases.v1.db.example.com", "--watch", "--output-watch-events")
	waitForLine(t, lines, regexp.MustCompile(`^ADDED\s+orders\s`), b) // listed: the watch follows from there
	a.mustKubectl(t, "label", "databases.v1.db.example.com", "orders", "tier=gold")
	waitForLine(t, lines, regexp.MustCompile(`^MODIFIED\s+orders\s`), b)

	if err := a.proc.Stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitForAPIServiceRow(t, b, "v1.db.example.com", `kube-system/apigen-proxy-endpoint-0\s+False \(FailedDiscoveryCheck\)\s`)
	out, err := b.kubectl(t, "get", "databases.v1.db.example.com")
	if err == nil || !strings.Contains(out, "service unavailable") {
		t.Errorf("the proxied group version with its backend down: %v\n%s", err, out)
	}
	b.mustKubectl(t, "get", "clusterroles")
}

// waitForAPIServiceRow polls `kubectl get apiservices` against s until the row of name
// matches pattern after the name, at most 30s.
func waitForAPIServiceRow(t *testing.T, s *apiServer, name, pattern string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s+` + pattern)
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := s.kubectl(t, "get", "apiservices")
		if re.MatchString(out) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl get apiservices: no row %s within 30s:\n%s\nserver output:\n%s", re, out, s.proc.Output())
		}
		time.Sleep(300 * time.Millisecond)
	}
}
