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

// waitTimeout bounds every wait of the suite for an event or a result.
const waitTimeout = 5 * time.Second

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

// RunTests runs the conformance suite against b, one subtest per behaviour.
func RunTests(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, b Backend)
	}{
		{"create", testCreate},
		{"create-exists", testCreateExists},
		{"get-not-found", testGetNotFound},
		{"get", testGet},
		{"list", testList},
		{"list-paged-consistent", testListPagedConsistent},
		{"list-large-pages", testListLargePages},
		{"list-continue-tampered", testListContinueTampered},
		{"list-continue-expired", testListContinueExpired},
		{"list-label-selector", testListLabelSelector},
		{"guaranteed-update", testGuaranteedUpdate},
		{"guaranteed-update-noop-keeps-rv", testGuaranteedUpdateNoop},
		{"guaranteed-update-conflict-retry", testGuaranteedUpdateConflictRetry},
		{"delete", testDelete},
		{"delete-preconditions", testDeletePreconditions},
		{"watch-from-rv", testWatchFromRV},
		{"watch-initial-state", testWatchInitialState},
		{"watch-starts-at-return", testWatchStartsAtReturn},
		{"watch-deleted-object", testWatchDeletedObject},
		{"watch-selector-transitions", testWatchSelectorTransitions},
		{"watch-compacted-410", testWatchCompacted},
		{"bookmarks", testBookmarks},
		{"send-initial-events", testSendInitialEvents},
		{"list-matches-reference", testListMatchesReference},
		{"replica-read-your-writes", testReplicaReadYourWrites},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, b) })
	}
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
