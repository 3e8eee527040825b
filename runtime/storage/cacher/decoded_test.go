package cacher_test

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// sameMap reports whether a and b are the same map (not merely equal ones).
func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestStorageUnderTheCacheUsesItsObjects: the etcd3 store under a cache takes the objects
// the cache holds (storage.DecodedObjects) instead of decoding, and keeping a second decoded
// copy of, what it reads from etcd. A quorum get for a reader that only reads gets the
// cache's object (sharing its maps); other readers, and an update's tryUpdate, get a copy
// of their own, whose changes leave the cache's object as it was.
func TestStorageUnderTheCacheUsesItsObjects(t *testing.T) {
	client, _ := etcdtest.Run(t)
	c := newCacher(t, client, newPrefix(), nil, cacher.Config{})
	ctx := context.Background()
	created := &testapi.Widget{}
	in := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"app": "x"}}}
	if err := c.Create(ctx, "/ns/a", in, created); err != nil {
		t.Fatal(err)
	}
	rev, err := strconv.ParseInt(created.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	var cached runtime.Object
	waitFor(t, "the cache to hold the widget", func() bool {
		var ok bool
		cached, ok = c.DecodedObject("/ns/a", rev)
		return ok
	})
	if _, ok := c.DecodedObject("/ns/a", rev+1); ok {
		t.Errorf("DecodedObject at revision %d answered for the object at %d", rev+1, rev)
	}
	cachedLabels := cached.(*testapi.Widget).Labels

	shared := &testapi.Widget{}
	if err := c.Get(request.WithReadOnlyResults(ctx), "/ns/a", storage.GetOptions{}, shared); err != nil {
		t.Fatal(err)
	}
	if !sameMap(shared.Labels, cachedLabels) {
		t.Errorf("a quorum get for a reader decoded the widget again; want the cache's object")
	}
	if shared.ResourceVersion != created.ResourceVersion {
		t.Errorf("a quorum get for a reader: resourceVersion %q, want %q", shared.ResourceVersion, created.ResourceVersion)
	}

	own := &testapi.Widget{}
	if err := c.Get(ctx, "/ns/a", storage.GetOptions{}, own); err != nil {
		t.Fatal(err)
	}
	if sameMap(own.Labels, cachedLabels) || own.Labels["app"] != "x" {
		t.Fatalf("a quorum get for a writer: labels %v, shared with the cache %v; want a copy of its own",
			own.Labels, sameMap(own.Labels, cachedLabels))
	}
	own.Labels["app"] = "changed by a reader"

	updated := &testapi.Widget{}
	err = c.GuaranteedUpdate(ctx, "/ns/a", updated, false, nil, func(in runtime.Object) (runtime.Object, error) {
		w := in.(*testapi.Widget)
		if sameMap(w.Labels, cachedLabels) {
			t.Errorf("tryUpdate got the cache's object; want a copy of its own")
		}
		w.Labels["app"] = "y"
		return w, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Labels["app"] != "y" {
		t.Errorf("updated labels %v; want app=y", updated.Labels)
	}
	if cachedLabels["app"] != "x" {
		t.Errorf("the cache's object changed under it: labels %v; want app=x", cachedLabels)
	}
}
