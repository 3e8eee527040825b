package cacher_test

import (
	"context"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// countingLists is etcd3 storage that counts the lists it serves.
type countingLists struct {
	storage.Interface
	lists atomic.Int64
}

func (c *countingLists) GetList(ctx context.Context, key string, opts storage.ListOptions, out runtime.Object) error {
	c.lists.Add(1)
	return c.Interface.GetList(ctx, key, opts, out)
}

// CurrentRevision keeps etcd3's storage.RevisionReader visible through the wrapper.
func (c *countingLists) CurrentRevision(ctx context.Context) (int64, error) {
	return c.Interface.(storage.RevisionReader).CurrentRevision(ctx)
}

// TestNoWatchProgressReadsStorage: with storage whose watch cannot report progress
// (Config.NoWatchProgress), a consistent list (resourceVersion "") is served by storage, as
// kube-apiserver serves it from etcd when its etcd lacks RequestWatchProgress; otherwise
// the cache serves it.
func TestNoWatchProgressReadsStorage(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	for _, noProgress := range []bool{false, true} {
		st := &countingLists{Interface: etcd3.New(client, widgetCodec(), testapi.NewWidget, newPrefix(), testapi.Resource)}
		c, err := cacher.New(cacher.Config{Storage: st, Resource: testapi.Resource, NewFunc: testapi.NewWidget, NoWatchProgress: noProgress})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Stop)
		waitFor(t, "the cache to sync", c.Synced)
		before := st.lists.Load()
		if err := c.GetList(context.Background(), "/ns/", storage.ListOptions{Recursive: true}, &testapi.WidgetList{}); err != nil {
			t.Fatal(err)
		}
		if fromStorage := st.lists.Load() > before; fromStorage != noProgress {
			t.Errorf("NoWatchProgress %v: consistent list served by storage: %v, want %v", noProgress, fromStorage, noProgress)
		}
	}
}
