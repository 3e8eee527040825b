package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKubectlAdmission enables the example's admission plugins: DatabaseEngineLabel labels
// every Database with its engine (so a label selector finds them), and DatabaseQuota refuses
// a fourth Database in a namespace with kube-apiserver's 403 wording, while other namespaces
// are unaffected.
func TestKubectlAdmission(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t, "--enable-admission-plugins=DatabaseQuota,DatabaseEngineLabel")
	dir := t.TempDir()
	create := func(ns, name, engine string) (string, error) {
		path := filepath.Join(dir, ns+"-"+name+".yaml")
		body := fmt.Sprintf("apiVersion: db.example.com/v1\nkind: Database\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  engine: %s\n", name, ns, engine)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return s.kubectl(t, "create", "-f", path)
	}
	for i, engine := range []string{"postgres", "mysql", "postgres"} {
		if out, err := create("default", fmt.Sprintf("db-%d", i), engine); err != nil {
			t.Fatalf("create db-%d: %v\n%s", i, err, out)
		}
	}
	if got := s.mustKubectl(t, "get", "databases", "-l", "db.example.com/engine=postgres", "-o", "jsonpath={.items[*].metadata.name}"); got != "db-0 db-2" {
		t.Errorf("databases labelled postgres: %q, want \"db-0 db-2\"", got)
	}
	out, err := create("default", "db-3", "postgres")
	if err == nil || !strings.Contains(out, `databases.db.example.com "db-3" is forbidden: exceeded quota: namespace default has 3 databases, the limit is 3`) {
		t.Errorf("the fourth database: %v\n%s", err, out)
	}
	s.mustKubectl(t, "create", "namespace", "team-a") // NamespaceLifecycle: content needs its namespace
	if out, err := create("team-a", "db-0", "mysql"); err != nil {
		t.Errorf("another namespace is limited too: %v\n%s", err, out)
	}
}
