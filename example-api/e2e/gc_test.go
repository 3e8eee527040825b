package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// holdFinalizer keeps a dependent in place (deletionTimestamp set) until the test removes it,
// so that the middle of a foreground deletion can be looked at.
const holdFinalizer = "e2e.example.com/hold"

// gcWait bounds each wait for the garbage collector: generous, for a loaded 2-core machine.
const gcWait = 60 * time.Second

// owner is an ownerReference to write into a manifest.
type owner struct {
	apiVersion, kind, name, uid string
	block                       bool
}

// metadata renders the metadata block of a manifest: name, namespace ("" for a
// cluster-scoped object), owners and finalizers.
func metadata(name, namespace string, owners []owner, finalizers ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "metadata:\n  name: %s\n", name)
	if namespace != "" {
		fmt.Fprintf(&b, "  namespace: %s\n", namespace)
	}
	if len(owners) > 0 {
		b.WriteString("  ownerReferences:\n")
		for _, o := range owners {
			fmt.Fprintf(&b, "  - apiVersion: %s\n    kind: %s\n    name: %s\n    uid: %s\n    blockOwnerDeletion: %v\n",
				o.apiVersion, o.kind, o.name, o.uid, o.block)
		}
	}
	if len(finalizers) > 0 {
		fmt.Fprintf(&b, "  finalizers: [%s]\n", strings.Join(finalizers, ", "))
	}
	return b.String()
}

// create runs kubectl create on manifest and returns the object's uid.
func (s *apiServer) create(t *testing.T, manifest string) string {
	t.Helper()
	path := writeCRDManifest(t, "object.yaml", manifest)
	return strings.TrimSpace(s.mustKubectl(t, "create", "-f", path, "-o", "jsonpath={.metadata.uid}"))
}

// database creates the Database name in default, owned by owners, and returns its uid.
func (s *apiServer) database(t *testing.T, name string, owners ...owner) string {
	t.Helper()
	return s.create(t, "apiVersion: db.example.com/v1\nkind: Database\n"+metadata(name, "default", owners)+"spec:\n  engine: postgres\n")
}

// backup creates the Backup name in default, owned by owners, with finalizers.
func (s *apiServer) backup(t *testing.T, name string, owners []owner, finalizers ...string) string {
	t.Helper()
	return s.create(t, "apiVersion: db.example.com/v1\nkind: Backup\n"+metadata(name, "default", owners, finalizers...)+
		"spec:\n  databaseName: "+name+"\n")
}

// cronTab creates the CronTab name in default, owned by owners, with finalizers.
func (s *apiServer) cronTab(t *testing.T, name string, owners []owner, finalizers ...string) string {
	t.Helper()
	return s.create(t, "apiVersion: stable.example.com/v1\nkind: CronTab\n"+metadata(name, "default", owners, finalizers...)+
		"spec:\n  cronSpec: \"* * * * */5\"\n  image: backup\n")
}

// jsonpath returns `kubectl get <object> -o jsonpath=<path>`.
func (s *apiServer) jsonpath(t *testing.T, object, path string) string {
	t.Helper()
	return s.mustKubectlQuiet(t, "get", object, "-o", "jsonpath="+path)
}

// waitGone polls until kubectl no longer finds object ("backup/orders-nightly").
func (s *apiServer) waitGone(t *testing.T, object string) {
	t.Helper()
	s.waitUntil(t, object+" to be deleted", func() bool {
		out, err := s.kubectl(t, "get", object, "--ignore-not-found", "-o", "name")
		return err == nil && strings.TrimSpace(out) == ""
	})
}

// waitUntil polls cond every 100ms until it holds, failing after gcWait.
func (s *apiServer) waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(gcWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\nserver output:\n%s", what, s.proc.Output())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// releaseHold removes the hold finalizer of object.
func (s *apiServer) releaseHold(t *testing.T, object string) {
	t.Helper()
	s.mustKubectl(t, "patch", object, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
}

// TestKubectlGarbageCollection: a Backup owned by a Database is
// deleted after `kubectl delete database` (background); `--cascade=foreground` keeps the
// Database, with deletionTimestamp and the foregroundDeletion finalizer, until the Backup is
// gone, then deletes it (and kubectl, waiting, returns only then); `--cascade=orphan` leaves the
// Backup without the ownerReference.
func TestKubectlGarbageCollection(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	ownedBy := func(uid string) []owner {
		return []owner{{apiVersion: "db.example.com/v1", kind: "Database", name: "orders", uid: uid, block: true}}
	}

	// Background, kubectl's default.
	s.backup(t, "orders-nightly", ownedBy(s.database(t, "orders")))
	s.mustKubectl(t, "delete", "database", "orders")
	s.waitGone(t, "backup/orders-nightly")

	// Foreground, looked at in the middle: a finalizer holds the Backup.
	s.backup(t, "orders-nightly", ownedBy(s.database(t, "orders")), holdFinalizer)
	s.mustKubectl(t, "delete", "database", "orders", "--cascade=foreground", "--wait=false")
	s.waitUntil(t, "the collector to delete the Backup", func() bool {
		return s.jsonpath(t, "backup/orders-nightly", "{.metadata.deletionTimestamp}") != ""
	})
	if got := s.jsonpath(t, "database/orders", "{.metadata.finalizers} {.metadata.deletionTimestamp}"); !regexp.MustCompile(
		`^\["foregroundDeletion"\] \d{4}-\d\d-\d\dT`).MatchString(got) {
		t.Errorf("Database while its Backup remains: finalizers and deletionTimestamp %q", got)
	}
	s.releaseHold(t, "backup/orders-nightly")
	s.waitGone(t, "backup/orders-nightly")
	s.waitGone(t, "database/orders")

	// Foreground as kubectl runs it: it waits for the Database, which goes after its Backup.
	s.backup(t, "orders-nightly", ownedBy(s.database(t, "orders")))
	s.mustKubectl(t, "delete", "database", "orders", "--cascade=foreground")
	if out := s.mustKubectl(t, "get", "backup", "orders-nightly", "--ignore-not-found", "-o", "name"); out != "" {
		t.Errorf("the Backup outlived its Database's foreground deletion: %q", out)
	}

	// Orphan: kubectl waits for the Database; the Backup stays, without its ownerReference.
	s.backup(t, "orders-nightly", ownedBy(s.database(t, "orders")))
	s.mustKubectl(t, "delete", "database", "orders", "--cascade=orphan")
	if got := s.jsonpath(t, "backup/orders-nightly", "{.metadata.name} owners={.metadata.ownerReferences}"); got != "orders-nightly owners=" {
		t.Errorf("orphaned Backup: %q", got)
	}
	time.Sleep(500 * time.Millisecond) // an orphan must stay: give a wrong collector the chance to delete it
	s.mustKubectl(t, "get", "backup", "orders-nightly")
}

// TestGarbageCollectionCustomResourcesAcrossRestart: a custom resource
// (CronTab) owned by a typed kind (Database) and a typed kind (Backup) owned by a custom
// resource are collected in the background and orphaned as kubectl asks; foreground
// deletions of both under way when the server stops (their dependents held by a finalizer)
// finish after it starts again on the same data.
func TestGarbageCollectionCustomResourcesAcrossRestart(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	s := startServerAt(t, dataDir)
	s.mustKubectl(t, "apply", "-f", filepath.Join(crdsDir, "crontab.yaml"))
	s.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=30s", "crd/crontabs.stable.example.com")
	waitForAPIResource(t, s, "stable.example.com", regexp.MustCompile(`(?m)^crontabs\s`))
	byDatabase := func(name, uid string) []owner {
		return []owner{{apiVersion: "db.example.com/v1", kind: "Database", name: name, uid: uid, block: true}}
	}
	byCronTab := func(name, uid string) []owner {
		return []owner{{apiVersion: "stable.example.com/v1", kind: "CronTab", name: name, uid: uid, block: true}}
	}

	// Background and orphan, both ways.
	s.cronTab(t, "bg-child", byDatabase("bg-db", s.database(t, "bg-db")))
	s.backup(t, "bg-child", byCronTab("bg-ct", s.cronTab(t, "bg-ct", nil)))
	s.cronTab(t, "orphan-child", byDatabase("orphan-db", s.database(t, "orphan-db")))
	s.backup(t, "orphan-child", byCronTab("orphan-ct", s.cronTab(t, "orphan-ct", nil)))
	s.mustKubectl(t, "delete", "database/bg-db", "crontab/bg-ct")
	s.waitGone(t, "crontab/bg-child")
	s.waitGone(t, "backup/bg-child")
	s.mustKubectl(t, "delete", "database/orphan-db", "crontab/orphan-ct", "--cascade=orphan")
	for _, object := range []string{"crontab/orphan-child", "backup/orphan-child"} {
		if got := s.jsonpath(t, object, "{.metadata.name} owners={.metadata.ownerReferences}"); got != "orphan-child owners=" {
			t.Errorf("orphaned %s: %q", object, got)
		}
	}

	// Foreground, interrupted by a restart.
	s.cronTab(t, "fg-child", byDatabase("fg-db", s.database(t, "fg-db")), holdFinalizer)
	s.backup(t, "fg-child", byCronTab("fg-ct", s.cronTab(t, "fg-ct", nil)), holdFinalizer)
	s.mustKubectl(t, "delete", "database/fg-db", "crontab/fg-ct", "--cascade=foreground", "--wait=false")
	for _, object := range []string{"crontab/fg-child", "backup/fg-child"} {
		s.waitUntil(t, object+" to be deleted by the collector", func() bool {
			return s.jsonpath(t, object, "{.metadata.deletionTimestamp}") != ""
		})
	}
	if err := s.proc.Stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}

	s = startServerAt(t, dataDir)
	for _, object := range []string{"database/fg-db", "crontab/fg-ct"} {
		if got := s.jsonpath(t, object, "{.metadata.finalizers}"); got != `["foregroundDeletion"]` {
			t.Errorf("%s after the restart: finalizers %q, want the foreground deletion still under way", object, got)
		}
	}
	s.releaseHold(t, "crontab/fg-child")
	s.releaseHold(t, "backup/fg-child")
	for _, object := range []string{"crontab/fg-child", "backup/fg-child", "database/fg-db", "crontab/fg-ct"} {
		s.waitGone(t, object)
	}
}
