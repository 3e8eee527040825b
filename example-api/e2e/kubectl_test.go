package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// samplesDir is example-api/config/samples, relative to this package.
const samplesDir = "../config/samples"

// TestKubectlSession is the README's kubectl session, end to end: discovery, apply of every
// sample, defaults, an update by re-applying an edited sample, conversion to v1alpha1, a watch
// seeing a change made elsewhere, and delete; and BackupRecords kept in etcd without
// --backup-records-dsn.
func TestKubectlSession(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)

	out := s.mustKubectl(t, "version")
	if !regexp.MustCompile(`Server Version: v\d+\.\d+\.\d+`).MatchString(out) {
		t.Errorf("kubectl version did not print a server version:\n%s", out)
	}

	out = s.mustKubectl(t, "api-resources", "--api-group=db.example.com")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^databases\s+db\s+db\.example\.com/v1\s+true\s+Database$`),
		regexp.MustCompile(`(?m)^databaseclasses\s+db\.example\.com/v1\s+false\s+DatabaseClass$`),
		regexp.MustCompile(`(?m)^backups\s+db\.example\.com/v1\s+true\s+Backup$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("kubectl api-resources lacks %s:\n%s", want, out)
		}
	}

	s.mustKubectl(t, "apply", "-f", samplesDir)

	// Defaults applied on create: replicas 1, storage 10Gi, backup retention 7 days.
	var orders map[string]any
	if err := yaml.Unmarshal([]byte(s.mustKubectl(t, "get", "database", "orders", "-o", "yaml")), &orders); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{
		"spec.replicas":                   float64(1),
		"spec.storage":                    "10Gi",
		"spec.backup.retentionDays":       float64(7),
		"spec.engine":                     "postgres",
		"spec.parameters.max_connections": "200",
	} {
		if got := lookup(orders, path); got != want {
			t.Errorf("orders %s = %#v, want %#v", path, got, want)
		}
	}
	if gen := lookup(orders, "metadata.generation"); gen != float64(1) {
		t.Errorf("orders metadata.generation = %v, want 1", gen)
	}

	// The printer columns of the Database kind.
	out = s.mustKubectl(t, "get", "databases")
	if !regexp.MustCompile(`(?m)^NAME\s+ENGINE\s+VERSION\s+REPLICAS\s+PHASE\s+AGE$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^orders\s+postgres\s+16\.2\s+1\s`).MatchString(out) {
		t.Errorf("kubectl get databases did not print the printer columns:\n%s", out)
	}
	s.mustKubectl(t, "get", "db", "inventory")
	s.mustKubectl(t, "get", "databaseclasses", "standard-postgres", "small-mysql")
	s.mustKubectl(t, "get", "backups", "orders-nightly")

	// Without --backup-records-dsn, BackupRecords (+apigen:storage=interface) are kept in
	// etcd, as the server says.
	if !strings.Contains(s.proc.Output(), "no --backup-records-dsn: backuprecords.db.example.com are kept in etcd") {
		t.Errorf("the server does not say where backup records are kept:\n%s", s.proc.Output())
	}
	s.mustKubectl(t, "create", "-f", filepath.Join(samplesDir, "generated", "db.example.com_v1_backuprecord.yaml"))
	if out := s.mustKubectl(t, "get", "backuprecord", "backuprecord-sample", "-o", "jsonpath={.spec.backupName}"); out != "sample" {
		t.Errorf("backuprecord-sample spec.backupName = %q, want sample", out)
	}

	// Editing a sample and applying it again updates the object.
	edited := filepath.Join(t.TempDir(), "orders.yaml")
	sample, err := os.ReadFile(filepath.Join(samplesDir, "db_v1_database.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sample = []byte(strings.Replace(string(sample), "  engine: postgres\n", "  engine: postgres\n  replicas: 3\n", 1))
	if err := os.WriteFile(edited, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := s.mustKubectl(t, "apply", "-f", edited); !strings.Contains(out, "configured") {
		t.Errorf("re-applying an edited sample did not configure it:\n%s", out)
	}
	if got := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.spec.replicas} {.metadata.generation}"); got != "3 2" {
		t.Errorf("after apply: replicas and generation = %q, want \"3 2\"", got)
	}

	// The same objects read through v1alpha1: storage 10Gi is sizeGiB 10, and the object
	// written through v1alpha1 (sizeGiB 20) reads back as 20 there and as 20Gi through v1.
	if got := s.mustKubectl(t, "get", "databases.v1alpha1.db.example.com", "orders", "-o", "jsonpath={.apiVersion} {.spec.sizeGiB}"); got != "db.example.com/v1alpha1 10" {
		t.Errorf("orders through v1alpha1 = %q, want \"db.example.com/v1alpha1 10\"", got)
	}
	if got := s.mustKubectl(t, "get", "databases.v1alpha1.db.example.com", "inventory", "-o", "jsonpath={.spec.sizeGiB}"); got != "20" {
		t.Errorf("inventory sizeGiB through v1alpha1 = %q, want 20", got)
	}
	if got := s.mustKubectl(t, "get", "databases.v1.db.example.com", "inventory", "-o", "jsonpath={.spec.storage}"); got != "20Gi" {
		t.Errorf("inventory storage through v1 = %q, want 20Gi", got)
	}

	// kubectl get -w prints a change made by another client.
	lines := s.watchLines(t, "get", "databases", "-w")
	waitForLine(t, lines, regexp.MustCompile(`^orders\s+postgres\s+16\.2\s+3\s`), s)
	s.mustKubectl(t, "patch", "database", "orders", "--type=merge", "-p", `{"spec":{"replicas":7}}`)
	waitForLine(t, lines, regexp.MustCompile(`^orders\s+postgres\s+16\.2\s+7\s`), s)

	// Delete removes every sample.
	s.mustKubectl(t, "delete", "-f", samplesDir)
	if out, err := s.kubectl(t, "get", "database", "orders"); err == nil || !strings.Contains(out, `databases.db.example.com "orders" not found`) {
		t.Errorf("get after delete: err=%v, output:\n%s", err, out)
	}
	if out := s.mustKubectl(t, "get", "databases", "-A"); !strings.Contains(out, "No resources found") {
		t.Errorf("databases remain after delete:\n%s", out)
	}
}

// waitForLine reads lines until one matches re, failing after 30s.
func waitForLine(t *testing.T, lines <-chan string, re *regexp.Regexp, s *apiServer) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	var seen []string
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("watch ended before a line matched %s; saw:\n%s", re, strings.Join(seen, "\n"))
			}
			seen = append(seen, line)
			if re.MatchString(line) {
				return
			}
		case <-timeout:
			t.Fatalf("no watch line matched %s within 30s; saw:\n%s\nserver output:\n%s", re, strings.Join(seen, "\n"), s.proc.Output())
		}
	}
}

// lookup returns the value at a dotted path in a decoded YAML/JSON document, or nil.
func lookup(doc map[string]any, path string) any {
	var cur any = doc
	for _, part := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}
