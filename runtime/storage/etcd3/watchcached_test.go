package etcd3_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// replicaSet returns two widget storages on one etcd under one prefix, as two server
// replicas sharing a cluster, and a counter of the first one's etcd calls.
type replicaSet func(t *testing.T) (a, b storage.Interface, calls *rpcCounter)

// bothWays runs test on bare stores (replicas) and on stores under watch caches
// (cachedReplicas), where a store remembers states by digest and starts writes from the
// cache's objects.
func bothWays(t *testing.T, test func(t *testing.T, replicas replicaSet)) {
	t.Run("etcd", func(t *testing.T) { test(t, replicas) })
	t.Run("watch-cached", func(t *testing.T) { test(t, cachedReplicas) })
}

// cachedReplicas is replicas with each store behind its own synced watch cache, stopped in
// cleanup.
func cachedReplicas(t *testing.T) (a, b storage.Interface, calls *rpcCounter) {
	bareA, bareB, calls := replicas(t)
	return cached(t, bareA), cached(t, bareB), calls
}

// cached returns st behind a synced watch cache, stopped in cleanup.
func cached(t *testing.T, st storage.Interface) *cacher.Cacher {
	t.Helper()
	c, err := cacher.New(cacher.Config{Storage: st, Resource: testapi.Resource, NewFunc: testapi.NewWidget})
	if err != nil {
		t.Fatalf("cacher.New: %v", err)
	}
	t.Cleanup(c.Stop)
	waitUntil(t, "the cache to sync", c.Synced)
	return c
}

// waitUntil polls cond every 5ms until it holds, failing the test after 10s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// holding waits until c holds ns/w at w's resourceVersion.
func holding(t *testing.T, c *cacher.Cacher, w *testapi.Widget) {
	t.Helper()
	rev, err := strconv.ParseInt(w.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the cache to hold rv "+w.ResourceVersion, func() bool {
		_, ok := c.DecodedObject("/ns/w", rev)
		return ok
	})
}

// TestWatchCachedUpdatesStartFromTheCache: under a watch cache, a store remembers each key's
// last state without its bytes and starts the next write from the cache's object: once the
// cache holds the revision written, an update is one transaction without a read, a no-op
// update writes nothing (confirmed by one read, as the remembered state holds no bytes to
// compare), and a delete returns the last state.
func TestWatchCachedUpdatesStartFromTheCache(t *testing.T) {
	st, _, calls := replicas(t)
	c := cached(t, st)

	created := mustCreate(t, c, "u1")
	holding(t, c, created)
	calls.take()
	updated := mustUpdate(t, c, setSize(2, created.ResourceVersion))
	if got := calls.take(); got["Range"] != 0 || got["Txn"] != 1 {
		t.Errorf("an update from the cache's object made etcd calls %v, want 1 Txn and no Range", got)
	}
	if updated.Spec.Size != 2 || updated.UID != "u1" {
		t.Errorf("updated widget: size %d uid %q, want 2 and u1", updated.Spec.Size, updated.UID)
	}

	holding(t, c, updated)
	calls.take()
	same := mustUpdate(t, c, setSize(2, updated.ResourceVersion))
	if same.ResourceVersion != updated.ResourceVersion || same.Spec.Size != 2 {
		t.Errorf("no-op update stored size %d at rv %s, want size 2 kept at rv %s", same.Spec.Size, same.ResourceVersion, updated.ResourceVersion)
	}
	if got := calls.take(); got["Range"] != 1 || got["Txn"] != 0 {
		t.Errorf("a no-op update from the cache's object made etcd calls %v, want 1 Range (the bytes compared) and no Txn", got)
	}

	changed := mustUpdate(t, c, func(in runtime.Object) (runtime.Object, error) {
		w := in.(*testapi.Widget)
		w.Labels = map[string]string{"final": "yes"}
		return w, nil
	})
	holding(t, c, changed)
	out := &testapi.Widget{}
	if err := c.Delete(context.Background(), "/ns/w", out, nil, nil); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if out.Labels["final"] != "yes" || out.Spec.Size != 2 || out.ResourceVersion == changed.ResourceVersion {
		t.Errorf("deleted widget: labels %v size %d rv %s; want the last state at the delete's revision (after %s)",
			out.Labels, out.Spec.Size, out.ResourceVersion, changed.ResourceVersion)
	}
}

// TestUpdatesBeforeTheCacheCatchesUp: a store under a watch cache that has not seen its
// writes yet (here a cache never started, so it never does) starts an update from the bytes
// of its recent writes, without reading etcd.
func TestUpdatesBeforeTheCacheCatchesUp(t *testing.T) {
	st, _, calls := replicas(t)
	c, err := cacher.New(cacher.Config{Storage: st, Resource: testapi.Resource, NewFunc: testapi.NewWidget, Start: make(chan struct{})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)

	created := mustCreate(t, c, "u1")
	calls.take()
	mustUpdate(t, c, setSize(2, created.ResourceVersion))
	got := mustUpdate(t, c, setSize(3, ""))
	if calls := calls.take(); calls["Range"] != 0 || calls["Txn"] != 2 {
		t.Errorf("two updates after a create, the cache not caught up, made etcd calls %v; want 2 Txn and no Range", calls)
	}
	if got.Spec.Size != 3 || got.UID != "u1" {
		t.Errorf("updated widget: size %d uid %q, want 3 and u1", got.Spec.Size, got.UID)
	}
}
