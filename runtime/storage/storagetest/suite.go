package storagetest

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// waitTimeout bounds every wait of the suite for an event or a result. A wait ends as soon as
// what it waits for happens, so the bound only says when to give up (and how long the kit
// takes to name a backend that loses an event): generous, because the race pass of make
// test on two cores can stall a backend's goroutines for seconds (a watch-from-rv wait of
// 5 s once ran out there).
const waitTimeout = 15 * time.Second

// Backend is what the suite needs from an implementation.
type Backend struct {
	// New returns a storage.Interface for testapi.Widget (codec testapi.Codec(), newFunc
	// testapi.NewWidget) that holds no objects and shares no keys with the storage of any
	// other call. Anything it starts must be stopped in t.Cleanup.
	New func(t *testing.T) storage.Interface
	// Compact discards the history of the backend behind the last New's storage up to its
	// current revision, so older resourceVersions become Expired. Nil skips the compaction
	// tests (list-continue-expired, watch-compacted-410).
	Compact func(t *testing.T)
	// NewReference, when not nil, returns storage of the same objects as the last New's
	// read without anything between the suite and the backend's database (etcd3 on the same
	// key prefix): the list-matches-reference test compares the two. Nil skips it.
	NewReference func(t *testing.T) storage.Interface
	// NewReplica, when not nil, returns storage of the same objects as the last New's, as
	// another server on the same database would have it (its own client, its own caches):
	// the replica-read-your-writes test writes through one and reads through the other.
	// Nil skips it.
	NewReplica func(t *testing.T) storage.Interface
	// BookmarkInterval is the longest gap between BOOKMARK events of an idle watch that asks
	// for them; 0 means the suite's wait bound (5s). It bounds the bookmarks test.
	BookmarkInterval time.Duration
}

// Run runs the storage conformance kit against b, one subtest per guarantee, in the order
// of Guarantees, as Kubernetes runs k8s.io/apiserver/pkg/storage/testing against each of its
// backends: a backend author calls it from a test of their own,
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, storagetest.Backend{New: func(t *testing.T) storage.Interface {
//			return mystore.New(testapi.Codec(), testapi.NewWidget, ...)
//		}})
//	}
//
// The subtests run one after another (they share b's last New); a failing one says which
// guarantee the backend breaks in a last line "broken guarantee <name>: <text>" (the
// Guarantee's), after the failure itself. Tests whose Backend field is nil (Compact,
// NewReference, NewReplica) are skipped, saying why.
func Run(t *testing.T, b Backend) {
	for _, g := range Guarantees {
		t.Run(g.Name, func(t *testing.T) {
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("broken guarantee %s: %s", g.Name, g.Text)
				}
			})
			g.test(t, b)
		})
	}
}

// Guarantee is one promise of storage.Interface that Run checks in a subtest of its Name.
type Guarantee struct {
	// Name is the subtest's name, e.g. "watch-from-rv".
	Name string
	// Text states the guarantee, as a failure reports it.
	Text string
	test func(t *testing.T, b Backend)
}

// Guarantees are what Run checks, in its order. Together they are the contract of
// storage.Interface that the layers above it (the watch cache, the registry's Store, the
// endpoints' paging and resourceVersion semantics) rely on, as etcd3 keeps it.
var Guarantees = []Guarantee{
	{"create", "Create stores the object and returns it with the resourceVersion a Get then reads", testCreate},
	{"create-exists", "Create of an existing key fails with KeyExists (409 AlreadyExists)", testCreateExists},
	{"get-not-found", "Get of a missing key fails with KeyNotFound (404), or returns the zero object with IgnoreNotFound", testGetNotFound},
	{"get", "Get returns the stored object at resourceVersion \"\", \"0\" (soon) and the object's own; a key escaping the prefix is InvalidObj (400)", testGet},
	{"list", "GetList returns every object under the key in key order, with the list's resourceVersion", testList},
	{"list-paged-consistent", "paged lists (limit, continue) return every object once, all pages read at the first page's revision", testListPagedConsistent},
	{"list-large-pages", "a page holds exactly limit objects in key order, counts the remaining ones, and a write between pages shows in none", testListLargePages},
	{"list-continue-tampered", "a malformed continue token, or one for another key, fails with InvalidObj (400)", testListContinueTampered},
	{"list-continue-expired", "a continue token at a compacted revision fails with ResourceVersionExpired (410)", testListContinueExpired},
	{"list-label-selector", "GetList returns exactly the objects its label selector matches, paging over matches", testListLabelSelector},
	{"guaranteed-update", "GuaranteedUpdate applies the update and bumps the resourceVersion; a refusing tryUpdate's error is returned; a missing key is KeyNotFound unless ignoreNotFound", testGuaranteedUpdate},
	{"guaranteed-update-noop-keeps-rv", "an update that changes nothing writes nothing and keeps the resourceVersion", testGuaranteedUpdateNoop},
	{"guaranteed-update-conflict-retry", "optimistic concurrency: concurrent GuaranteedUpdates each apply to the latest state; a write against a stale one is retried, never lost", testGuaranteedUpdateConflictRetry},
	{"delete", "Delete removes the object and returns its last state; a second Delete fails with KeyNotFound", testDelete},
	{"delete-preconditions", "Delete with a UID or resourceVersion precondition that does not match fails with Conflict and keeps the object", testDeletePreconditions},
	{"watch-from-rv", "a watch from resourceVersion N delivers every change after N, once, in order (no event lost or duplicated)", testWatchFromRV},
	{"watch-initial-state", "a watch from resourceVersion 0 first delivers the current objects as ADDED, then changes", testWatchInitialState},
	{"watch-starts-at-return", "a watch from \"\" starts where it stands when Watch returns: later writes are events, never lost", testWatchStartsAtReturn},
	{"watch-deleted-object", "a DELETED event carries the object's last state with the deletion's resourceVersion", testWatchDeletedObject},
	{"watch-selector-transitions", "a filtered watch sees an object entering its selector as ADDED and leaving it as DELETED", testWatchSelectorTransitions},
	{"watch-compacted-410", "a watch from a compacted resourceVersion fails with 410 Gone (Expired)", testWatchCompacted},
	{"bookmarks", "a watch that asks for bookmarks gets BOOKMARK events while idle, at a revision not older than its last event", testBookmarks},
	{"send-initial-events", "sendInitialEvents streams the current objects, then a BOOKMARK annotated initial-events-end, then changes", testSendInitialEvents},
	{"list-matches-reference", "lists at any revision, selector and page size equal the reference's (etcd's) pages, tokens and counts", testListMatchesReference},
	{"replica-read-your-writes", "a write through one server is seen at once by consistent reads and watches of another on the same database", testReplicaReadYourWrites},
}

// testContext returns a context that ends with the test or after a generous bound.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// key returns the storage key of a namespaced widget.
func key(ns, name string) string { return "/" + ns + "/" + name }

// newWidget returns an unsaved widget.
func newWidget(ns, name, color string, labels map[string]string) *testapi.Widget {
	return &testapi.Widget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, UID: types.UID("uid-" + name)},
		Spec:       testapi.WidgetSpec{Color: color, Size: 1},
	}
}

// create stores a widget and returns it as stored.
func create(t *testing.T, s storage.Interface, ns, name, color string, labels map[string]string) *testapi.Widget {
	t.Helper()
	out := &testapi.Widget{}
	if err := s.Create(testContext(t), key(ns, name), newWidget(ns, name, color, labels), out); err != nil {
		t.Fatalf("Create %s/%s: %v", ns, name, err)
	}
	return out
}

// update sets a widget's spec through GuaranteedUpdate and returns it as stored.
func update(t *testing.T, s storage.Interface, ns, name string, mutate func(w *testapi.Widget)) *testapi.Widget {
	t.Helper()
	out := &testapi.Widget{}
	err := s.GuaranteedUpdate(testContext(t), key(ns, name), out, false, nil, func(in runtime.Object) (runtime.Object, error) {
		w := in.(*testapi.Widget)
		mutate(w)
		return w, nil
	})
	if err != nil {
		t.Fatalf("GuaranteedUpdate %s/%s: %v", ns, name, err)
	}
	return out
}

// list lists widgets under key with opts.
func list(t *testing.T, s storage.Interface, key string, opts storage.ListOptions) *testapi.WidgetList {
	t.Helper()
	opts.Recursive = true
	out := &testapi.WidgetList{}
	if err := s.GetList(testContext(t), key, opts, out); err != nil {
		t.Fatalf("GetList %s: %v", key, err)
	}
	return out
}

// names returns the names of a list's items, in order.
func names(l *testapi.WidgetList) []string {
	out := make([]string, 0, len(l.Items))
	for _, w := range l.Items {
		out = append(out, w.Name)
	}
	return out
}
