package e2e

import (
	"regexp"
	"testing"
)

// TestKubectlPrinterColumnsAndCategories checks what `+kubebuilder:printcolumn` and
// `+kubebuilder:resource:categories` give kubectl: a column with priority 1 (Database's
// Storage) shows only with `-o wide`, as kube-apiserver's Table priority; `kubectl get all`
// includes databases, whose resource is in the "all" category.
func TestKubectlPrinterColumnsAndCategories(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	s.mustKubectl(t, "apply", "-f", samplesDir)

	plain := s.mustKubectl(t, "get", "databases")
	if regexp.MustCompile(`STORAGE`).MatchString(plain) {
		t.Errorf("a priority-1 column printed without -o wide:\n%s", plain)
	}
	wide := s.mustKubectl(t, "get", "databases", "-o", "wide")
	if !regexp.MustCompile(`(?m)^NAME\s+ENGINE\s+VERSION\s+REPLICAS\s+PHASE\s+AGE\s+STORAGE$`).MatchString(wide) ||
		!regexp.MustCompile(`(?m)^orders\s+postgres\s+16\.2\s+1\s+\S*\s*\S+\s+10Gi$`).MatchString(wide) {
		t.Errorf("kubectl get databases -o wide did not add the Storage column:\n%s", wide)
	}
	all := s.mustKubectl(t, "get", "all")
	// The only resource of the category here, so kubectl prints it without a type prefix.
	if !regexp.MustCompile(`(?m)^(database\.db\.example\.com/)?orders\s+postgres\s`).MatchString(all) {
		t.Errorf("kubectl get all does not list databases (category all):\n%s", all)
	}
}
