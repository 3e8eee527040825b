package informer

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	coreinstall "github.com/apigen-dev/apigen/runtime/apis/core/v1/install"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// names returns the names of objs, in order.
func names(objs []runtime.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.(*corev1.Namespace).Name)
	}
	return out
}

// TestCache fills a cache from a real store (namespaces on an embedded etcd): the first list,
// then creates, updates and deletes seen through the watch, in name order.
func TestCache(t *testing.T) {
	client, _ := etcdtest.Run(t)
	info, err := coreinstall.NewAPIGroupInfo(runtime.NewScheme(), &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	store := info.VersionedResourcesStorageMap["v1"]["namespaces"].(*registry.Store)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	create := func(name string, labels map[string]string) {
		t.Helper()
		if _, err := store.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	create("b", nil)
	c := New(store)
	if c.HasSynced() {
		t.Fatal("synced before Run")
	}
	go c.Run(ctx)
	waitCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if !c.WaitForSync(waitCtx) {
		t.Fatal("not synced within 10s")
	}
	if got := names(c.List()); len(got) != 1 || got[0] != "b" {
		t.Fatalf("after the list: %v", got)
	}
	gen := c.Generation()
	create("a", map[string]string{"team": "x"})
	create("c", nil)
	if _, _, err := store.Delete(ctx, "b", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { got := names(c.List()); return len(got) == 2 && got[0] == "a" && got[1] == "c" })
	if c.Generation() == gen {
		t.Error("Generation did not move with the content")
	}
	obj, ok := c.Get("", "a")
	if !ok || obj.(*corev1.Namespace).Labels["team"] != "x" {
		t.Errorf("Get(a) = %v, %v", obj, ok)
	}
	if _, ok := c.Get("", "b"); ok {
		t.Error("a deleted object is still cached")
	}
	if !c.Watching() {
		t.Error("not Watching while the watch runs")
	}
	cancel()
	waitFor(t, func() bool { return !c.Watching() })
	if !c.HasSynced() || len(c.List()) != 2 {
		t.Error("the objects read are gone once the watch ended")
	}
}

// waitFor polls cond every 10ms for up to 10s (a watch event on a loaded machine).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
