package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// TestKineSQLite runs a representative subset of this suite against
// --storage-backend=kine-sqlite (kine on SQLite in <data-dir>/kine instead of the embedded
// etcd), in one test to start one server: CRUD through kubectl, list paging, watch (kubectl
// -w and client-go), optimistic concurrency (a stale resourceVersion gets 409), server-side
// apply with a conflict, and a restart on the same data directory keeping the objects and
// their resourceVersions. The rest of the suite is left out on purpose, to keep CI time:
// everything above the storage.Interface (admission, RBAC, CRDs, aggregation, conversion,
// printers, OpenAPI, GC, namespaces) is storage-independent and runs on etcd; what depends on
// the backend is its storage contract, which storagetest checks in full on kine
// (runtime/storage/kine's TestKitSQLite and TestKitPostgres), and compaction
// (TestCompactorOnKine). The tests on etcd's own faults (ha, faults, replicas with several
// members) do not apply to an in-process SQLite.
func TestKineSQLite(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	dir := t.TempDir()
	s := startServerAt(t, dir, "--storage-backend=kine-sqlite", "--etcd-compaction-interval=1s")
	if _, err := os.Stat(filepath.Join(dir, "kine", "state.db")); err != nil {
		t.Fatalf("kine's SQLite database: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "etcd")); err == nil {
		t.Errorf("--storage-backend=kine-sqlite started the embedded etcd too (%s exists)", filepath.Join(dir, "etcd"))
	}
	if !strings.Contains(s.proc.Output(), "kine v0.17.5 on SQLite") {
		t.Errorf("the readiness line does not name kine:\n%s", s.proc.Output())
	}

	// CRUD and watch through kubectl.
	lines := s.watchLines(t, "get", "databases", "-w", "--output-watch-events", "--no-headers")
	s.mustKubectl(t, "apply", "-f", filepath.Join(samplesDir, "db_v1_database.yaml"))
	waitForLine(t, lines, regexp.MustCompile(`^ADDED\s+orders\s`), s)
	if out := s.mustKubectl(t, "get", "database", "orders", "-o", "jsonpath={.spec.storage}"); out != "10Gi" {
		t.Errorf("orders spec.storage = %q, want the default 10Gi", out)
	}
	s.mustKubectl(t, "patch", "database", "orders", "--type=merge", "-p", `{"spec":{"replicas":3}}`)
	waitForLine(t, lines, regexp.MustCompile(`^MODIFIED\s+orders\s+postgres\s+\S+\s+3\s`), s)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbs := s.dynamic.Resource(databasesV1).Namespace("default")

	// Optimistic concurrency: an update from a stale resourceVersion is 409 Conflict.
	orders, err := dbs.Get(ctx, "orders", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale := orders.DeepCopy()
	orders.Object["spec"].(map[string]any)["replicas"] = int64(4)
	if _, err := dbs.Update(ctx, orders, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale.Object["spec"].(map[string]any)["replicas"] = int64(5)
	_, err = dbs.Update(ctx, stale, metav1.UpdateOptions{})
	wantStatus(t, "update from a stale resourceVersion", err, 409, metav1.StatusReasonConflict)

	// Server-side apply: a field owned by another manager conflicts.
	applied := `{"apiVersion":"db.example.com/v1","kind":"Database","metadata":{"name":"orders"},"spec":{"engine":"postgres","replicas":6}}`
	_, err = dbs.Patch(ctx, "orders", types.ApplyPatchType, []byte(applied), metav1.PatchOptions{FieldManager: "other"})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), ".spec.replicas") {
		t.Errorf("apply of a field another manager owns: got %v, want a 409 conflict naming .spec.replicas", err)
	}
	if _, err := dbs.Patch(ctx, "orders", types.ApplyPatchType, []byte(applied), metav1.PatchOptions{FieldManager: "other", Force: new(true)}); err != nil {
		t.Fatalf("forced apply: %v", err)
	}

	// List paging: 7 objects in pages of 3, then a client-go watch from the list's revision.
	for _, name := range []string{"p1", "p2", "p3", "p4", "p5", "p6"} {
		if _, err := dbs.Create(ctx, newDatabase("db.example.com/v1", name, map[string]any{"engine": "mysql"}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	opts := metav1.ListOptions{Limit: 3}
	var listRV string
	for pages := 0; ; pages++ {
		page, err := dbs.List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if pages == 0 {
			listRV = page.GetResourceVersion()
		} else if page.GetResourceVersion() != listRV {
			t.Errorf("page %d at resourceVersion %s, want the first page's %s", pages, page.GetResourceVersion(), listRV)
		}
		for _, item := range page.Items {
			names = append(names, item.GetName())
		}
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			break
		}
	}
	if got := strings.Join(names, ","); got != "orders,p1,p2,p3,p4,p5,p6" {
		t.Errorf("paged list: %s, want orders,p1,...,p6", got)
	}
	w, err := dbs.Watch(ctx, metav1.ListOptions{ResourceVersion: listRV})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	s.mustKubectl(t, "delete", "database", "p1")
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Deleted {
			t.Errorf("client-go watch: %s event, want DELETED of p1", ev.Type)
		}
	case <-ctx.Done():
		t.Fatal("client-go watch: no DELETED event")
	}
	waitForLine(t, lines, regexp.MustCompile(`^DELETED\s+p1\s`), s)
	if _, err := s.kubectl(t, "get", "database", "p1"); err == nil {
		t.Error("kubectl get of a deleted database succeeded")
	}
	before, err := dbs.Get(ctx, "orders", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// A restart on the same data directory keeps the objects and their resourceVersions.
	if err := s.proc.Stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	s = startServerAt(t, dir, "--storage-backend=kine-sqlite")
	after, err := s.dynamic.Resource(databasesV1).Namespace("default").Get(ctx, "orders", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("orders after a restart: %v", err)
	}
	if after.GetResourceVersion() != before.GetResourceVersion() || after.Object["spec"].(map[string]any)["replicas"] != int64(6) {
		t.Errorf("orders after a restart: resourceVersion %s replicas %v, want %s and 6",
			after.GetResourceVersion(), after.Object["spec"].(map[string]any)["replicas"], before.GetResourceVersion())
	}
	if out := s.mustKubectl(t, "get", "databases", "--no-headers", "-o", "name"); strings.Count(out, "database.db.example.com/") != 6 {
		t.Errorf("databases after a restart:\n%s\nwant orders and p2-p6", out)
	}
}
