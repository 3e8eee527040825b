package cacher_test

import (
	"io"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// namedCodec is testapi's codec with a name, so two codecs can be equal or not.
type namedCodec struct {
	runtime.Codec `json:"-"`
	name          string
}

func (c *namedCodec) Encode(obj runtime.Object, w io.Writer) error { return c.Codec.Encode(obj, w) }

// TestStorageFactory: every storage comes behind a cache unless --watch-cache-sizes gives its
// resource 0; a custom resource's storage made again with an equal codec (its definition
// changed, not its storage) shares the cache, with another codec gets a new one and the old
// one stops; Stop stops them all.
func TestStorageFactory(t *testing.T) {
	client, _ := etcdtest.Run(t)
	off := schema.GroupResource{Group: "test.apigen.dev", Resource: "uncached"}
	f := &cacher.StorageFactory{Base: &etcd3.StorageFactory{Client: client, Prefix: newPrefix()},
		HistorySizes: map[schema.GroupResource]int{off: 0}}
	t.Cleanup(f.Stop)
	scheme := testapi.NewScheme()
	typed, err := f.NewStorage(testapi.Resource, testapi.SchemeGroupVersion, scheme, testapi.NewWidget)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := typed.(*cacher.Cacher); !ok {
		t.Errorf("NewStorage returned %T, want a *cacher.Cacher", typed)
	}
	if plain, err := f.NewStorage(off, testapi.SchemeGroupVersion, scheme, testapi.NewWidget); err != nil {
		t.Fatal(err)
	} else if _, ok := plain.(*cacher.Cacher); ok {
		t.Errorf("NewStorage of a resource sized 0 returned a cache")
	}
	custom := schema.GroupResource{Group: "stable.example.com", Resource: "crontabs"}
	inner := testapi.Codec()
	first, err := f.NewStorageWithCodec(custom, &namedCodec{Codec: inner, name: "v1"}, testapi.NewWidget)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.NewStorageWithCodec(custom, &namedCodec{Codec: inner, name: "v1"}, testapi.NewWidget)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Errorf("a custom resource's storage made again with an equal codec has a new cache")
	}
	other, err := f.NewStorageWithCodec(custom, &namedCodec{Codec: inner, name: "v2"}, testapi.NewWidget)
	if err != nil {
		t.Fatal(err)
	}
	if other == first {
		t.Fatalf("a custom resource's storage made with another codec shares the old cache")
	}
	waitFor(t, "the replaced cache to stop", func() bool { return !first.(*cacher.Cacher).Synced() })
	waitFor(t, "the new cache to sync", other.(*cacher.Cacher).Synced)
	f.Stop()
	if typed.(*cacher.Cacher).Synced() || other.(*cacher.Cacher).Synced() {
		t.Errorf("caches still synced after Stop")
	}
}
