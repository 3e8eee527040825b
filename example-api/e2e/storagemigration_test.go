package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubediscovery "k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/apigen-dev/apigen/internal/freeport"
	"github.com/apigen-dev/apigen/runtime/storageversionmigrator"
)

// TestStorageVersionMigration is a storage version switch and its migration:
// databases.db.example.com stored as v1alpha1 (the server run with
// --storage-version-overrides, standing for a build whose marker named v1alpha1), then the
// server restarted storing v1 (the marker's version) with discovery's storageVersionHash
// changed accordingly (checked against k8s.io/apiserver's own function), a
// StorageVersionMigration created with kubectl, the server restarted again in the middle of
// the migration (small pages; its progress annotation set), and the migration finished by the
// restarted server from where it stopped: every object's stored bytes (read from etcd) are v1
// and carry a new resourceVersion, and a second migration rewrites nothing. kubectl reads the
// databases through v1 and v1alpha1 before the switch, during the migration and after it.
func TestStorageVersionMigration(t *testing.T) {
	t.Parallel()
	const objects, pageSize = 200, "5"
	dir := t.TempDir()
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(freeport.Port(t))
	flags := []string{"--embedded-etcd-client-url=" + etcdURL, "--storage-version-migration-page-size=" + pageSize}
	override := "--storage-version-overrides=databases.db.example.com=v1alpha1"

	s := startServerAt(t, dir, append(flags, override)...)
	checkHash(t, s, "v1alpha1")
	createDatabases(t, s.unthrottled(t), objects)
	stored := storedVersions(t, etcdURL)
	if len(stored) != objects || countVersion(stored, "db.example.com/v1alpha1") != objects {
		t.Fatalf("before the switch: stored %v, want %d objects as v1alpha1", versionCounts(stored), objects)
	}
	before := resourceVersions(t, s.dynamic)
	bothVersionsRead(t, s, objects)
	stopServer(t, s)

	// The switch: the server stores v1; nothing is rewritten until a migration.
	s = startServerAt(t, dir, flags...)
	checkHash(t, s, "v1")
	if stored := storedVersions(t, etcdURL); countVersion(stored, "db.example.com/v1alpha1") != objects {
		t.Fatalf("after the switch, before a migration: stored %v, want all v1alpha1", versionCounts(stored))
	}
	manifest := filepath.Join(t.TempDir(), "svm.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: storagemigration.k8s.io/v1\nkind: StorageVersionMigration\n"+
		"metadata: {name: databases}\nspec:\n  resource: {group: db.example.com, resource: databases}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.mustKubectl(t, "create", "-f", manifest)
	// Stop it once it has saved its progress at least once and before it has finished.
	svmWaitFor(t, 20*time.Second, "the migration's progress annotation", func() bool {
		svm := getMigration(t, s, "databases")
		return svm.annotation != "" || svm.conditions["Succeeded"] == "True"
	})
	if svm := getMigration(t, s, "databases"); svm.conditions["Succeeded"] == "True" {
		t.Fatal("the migration finished before the restart: make the pages smaller or the objects more")
	}
	mid := storedVersions(t, etcdURL)
	stopServer(t, s)
	if countVersion(mid, "db.example.com/v1") == 0 {
		t.Errorf("stopped in the middle: stored %v, want some v1 already", versionCounts(mid))
	}
	t.Logf("restarting in the middle of the migration: stored %v", versionCounts(mid))

	s = startServerAt(t, dir, flags...)
	bothVersionsRead(t, s, objects) // while the migration goes on
	svmWaitFor(t, 30*time.Second, "the migration to succeed", func() bool {
		return getMigration(t, s, "databases").conditions["Succeeded"] == "True"
	})
	if !strings.Contains(s.proc.Output(), "storage version migration: continuing from the last page") {
		t.Errorf("the restarted server did not continue from the saved page:\n%s", s.proc.Output())
	}
	svm := getMigration(t, s, "databases")
	if svm.annotation != "" || svm.conditions["Running"] != "False" || svm.conditions["Failed"] != "" {
		t.Errorf("finished migration: annotation %q, conditions %v; want no annotation, Running False, no Failed", svm.annotation, svm.conditions)
	}
	stored = storedVersions(t, etcdURL)
	if countVersion(stored, "db.example.com/v1") != objects {
		t.Fatalf("after the migration: stored %v, want all %d as v1", versionCounts(stored), objects)
	}
	after := resourceVersions(t, s.dynamic)
	for name, rv := range before {
		if after[name] == rv {
			t.Errorf("%s: resourceVersion %s unchanged by the migration that rewrote it", name, rv)
		}
	}
	bothVersionsRead(t, s, objects)

	// A second migration finds everything stored as v1: nothing is written.
	if err := os.WriteFile(manifest, []byte("apiVersion: storagemigration.k8s.io/v1\nkind: StorageVersionMigration\n"+
		"metadata: {name: again}\nspec:\n  resource: {group: db.example.com, resource: databases}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.mustKubectl(t, "create", "-f", manifest)
	svmWaitFor(t, 30*time.Second, "the second migration to succeed", func() bool {
		return getMigration(t, s, "again").conditions["Succeeded"] == "True"
	})
	for name, rv := range resourceVersions(t, s.dynamic) {
		if after[name] != rv {
			t.Errorf("%s: resourceVersion %s -> %s: a migration of an object already in the storage version wrote it", name, after[name], rv)
		}
	}
}

// checkHash checks discovery's storageVersionHash of databases (v1 and v1alpha1 alike: the
// storage is one) against k8s.io/apiserver's for storage version, and that the
// subresources have none.
func checkHash(t *testing.T, s *apiServer, storageVersion string) {
	t.Helper()
	want := kubediscovery.StorageVersionHash("db.example.com", storageVersion, "Database")
	for _, gv := range []string{"v1", "v1alpha1"} {
		var list metav1.APIResourceList
		if err := json.Unmarshal([]byte(s.mustKubectl(t, "get", "--raw", "/apis/db.example.com/"+gv)), &list); err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			switch {
			case r.Name == "databases" && r.StorageVersionHash != want:
				t.Errorf("%s databases: storageVersionHash %q, want %q (%s)", gv, r.StorageVersionHash, want, storageVersion)
			case strings.HasPrefix(r.Name, "databases/") && r.StorageVersionHash != "":
				t.Errorf("%s %s: storageVersionHash %q on a subresource", gv, r.Name, r.StorageVersionHash)
			}
		}
	}
}

// createDatabases creates n databases through v1alpha1, 8 at a time.
func createDatabases(t *testing.T, dyn dynamic.Interface, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				obj := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "db.example.com/v1alpha1", "kind": "Database",
					"metadata": map[string]any{"name": fmt.Sprintf("db-%03d", i), "namespace": "default"},
					"spec":     map[string]any{"engine": "postgres", "version": "16", "sizeGiB": int64(i%50 + 1)},
				}}
				if _, err := dyn.Resource(databasesV1alpha1).Namespace("default").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// storedVersions reads every database's stored bytes from etcd and returns their
// apiVersion by key.
func storedVersions(t *testing.T, etcdURL string) map[string]string {
	t.Helper()
	resp := etcdGet(t, etcdURL, "/registry/db.example.com/databases/", clientv3.WithPrefix())
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		var tm metav1.TypeMeta
		if err := json.Unmarshal(kv.Value, &tm); err != nil {
			t.Fatalf("%s: %v: %q", kv.Key, err, kv.Value)
		}
		out[string(kv.Key)] = tm.APIVersion
	}
	return out
}

// countVersion counts the keys stored as apiVersion.
func countVersion(stored map[string]string, apiVersion string) int {
	n := 0
	for _, v := range stored {
		if v == apiVersion {
			n++
		}
	}
	return n
}

// versionCounts counts the keys by apiVersion, for messages.
func versionCounts(stored map[string]string) map[string]int {
	out := map[string]int{}
	for _, v := range stored {
		out[v]++
	}
	return out
}

// resourceVersions returns every database's resourceVersion by name.
func resourceVersions(t *testing.T, dyn dynamic.Interface) map[string]string {
	t.Helper()
	list, err := dyn.Resource(databasesV1).Namespace("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, item := range list.Items {
		out[item.GetName()] = item.GetResourceVersion()
	}
	return out
}

// bothVersionsRead checks that kubectl lists n databases through v1 and through v1alpha1.
func bothVersionsRead(t *testing.T, s *apiServer, n int) {
	t.Helper()
	for _, resource := range []string{"databases.v1.db.example.com", "databases.v1alpha1.db.example.com"} {
		out, err := s.kubectl(t, "get", resource, "-n", "default", "-o", "name")
		if err != nil {
			t.Fatalf("kubectl get %s: %v\n%s", resource, err, out)
		}
		if got := strings.Count(out, "database.db.example.com/"); got != n {
			t.Errorf("kubectl get %s: %d databases, want %d\n%s", resource, got, n, out)
		}
	}
}

// migration is what the test reads of a StorageVersionMigration.
type migration struct {
	annotation string            // the progress annotation
	conditions map[string]string // type -> status
}

// getMigration reads the StorageVersionMigration name.
func getMigration(t *testing.T, s *apiServer, name string) migration {
	t.Helper()
	gvr := schema.GroupVersionResource{Group: "storagemigration.k8s.io", Version: "v1", Resource: "storageversionmigrations"}
	obj, err := s.dynamic.Resource(gvr).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get storageversionmigration %s: %v", name, err)
	}
	m := migration{annotation: obj.GetAnnotations()[storageversionmigrator.ContinueAnnotation], conditions: map[string]string{}}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if c, ok := c.(map[string]any); ok {
			m.conditions[fmt.Sprint(c["type"])] = fmt.Sprint(c["status"])
		}
	}
	return m
}

// stopServer stops s (SIGTERM) and fails the test unless it exits cleanly.
func stopServer(t *testing.T, s *apiServer) {
	t.Helper()
	if err := s.proc.Stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// svmWaitFor polls cond every 50 ms until it holds, failing the test after timeout.
func svmWaitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
