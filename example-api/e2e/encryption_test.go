package e2e

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/internal/freeport"
)

// TestEncryptionAtRest runs example-apiserver with --encryption-provider-config covering
// databases.db.example.com: a Database created with kubectl is stored under
// kube's "k8s:enc:aescbc:v1:key1:" prefix with none of its fields in the clear, and kubectl
// reads it. Restarted with a new key first (key2, then key1), the server still reads it; a
// StorageVersionMigration of databases rewrites it under key2, as kube re-encrypts.
func TestEncryptionAtRest(t *testing.T) {
	t.Parallel()
	const marker = "plaintext-engine-marker"
	dir := t.TempDir()
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(freeport.Port(t))
	key := func(name string, seed byte) string {
		return "{name: " + name + ", secret: " + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{seed}, 32)) + "}"
	}
	config := func(keys ...string) string {
		path := filepath.Join(t.TempDir(), "encryption.yaml")
		body := "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n" +
			"- resources: [databases.db.example.com]\n  providers:\n  - aescbc:\n      keys: [" + strings.Join(keys, ", ") + "]\n  - identity: {}\n"
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return "--encryption-provider-config=" + path
	}
	stored := func() []byte {
		t.Helper()
		resp := etcdGet(t, etcdURL, "/registry/db.example.com/databases/default/secretdb")
		if len(resp.Kvs) != 1 {
			t.Fatalf("etcd get: %d keys, want 1", len(resp.Kvs))
		}
		return resp.Kvs[0].Value
	}
	checkStored := func(prefix string) {
		t.Helper()
		v := stored()
		if !bytes.HasPrefix(v, []byte(prefix)) {
			t.Errorf("etcd holds %q..., want the prefix %q", v[:min(len(v), 40)], prefix)
		}
		if bytes.Contains(v, []byte(marker)) || bytes.Contains(v, []byte("Database")) {
			t.Errorf("etcd holds the Database in the clear: %q", v)
		}
	}
	flags := []string{"--embedded-etcd-client-url=" + etcdURL}

	s := startServerAt(t, dir, append(flags, config(key("key1", 1)))...)
	manifest := filepath.Join(t.TempDir(), "db.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: db.example.com/v1\nkind: Database\nmetadata:\n  name: secretdb\n  namespace: default\n"+
		"  labels: {marker: "+marker+"}\nspec:\n  engine: postgres\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.mustKubectl(t, "create", "-f", manifest)
	checkStored("k8s:enc:aescbc:v1:key1:")
	if got := s.mustKubectl(t, "get", "database", "secretdb", "-o", "jsonpath={.metadata.labels.marker}"); got != marker {
		t.Errorf("kubectl get: label %q, want %q", got, marker)
	}
	stopServer(t, s)

	s = startServerAt(t, dir, append(flags, config(key("key2", 2), key("key1", 1)))...)
	if got := s.mustKubectl(t, "get", "database", "secretdb", "-o", "jsonpath={.spec.engine}"); got != "postgres" {
		t.Errorf("kubectl get after the rotation: engine %q, want postgres", got)
	}
	checkStored("k8s:enc:aescbc:v1:key1:") // nothing rewritten before a migration
	svm := filepath.Join(t.TempDir(), "svm.yaml")
	if err := os.WriteFile(svm, []byte("apiVersion: storagemigration.k8s.io/v1\nkind: StorageVersionMigration\n"+
		"metadata: {name: reencrypt}\nspec:\n  resource: {group: db.example.com, resource: databases}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.mustKubectl(t, "create", "-f", svm)
	svmWaitFor(t, time.Minute, "the migration to succeed", func() bool {
		return getMigration(t, s, "reencrypt").conditions["Succeeded"] == "True"
	})
	checkStored("k8s:enc:aescbc:v1:key2:")
	if got := s.mustKubectl(t, "get", "database", "secretdb", "-o", "jsonpath={.metadata.labels.marker}"); got != marker {
		t.Errorf("kubectl get after the migration: label %q, want %q", got, marker)
	}
}
