package etcd3

import (
	"context"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	jsonserializer "github.com/apigen-dev/apigen/runtime/serializer/json"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// countingCodec counts decodes.
type countingCodec struct {
	runtime.Codec
	decodes atomic.Int64
}

func (c *countingCodec) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	c.decodes.Add(1)
	return c.Codec.Decode(data, defaults, into)
}

// TestDecodeCache shows that reading stored bytes again skips the codec, that every read
// gets its own copy, and that new bytes (an update) are decoded.
func TestDecodeCache(t *testing.T) {
	client, _ := etcdtest.Run(t)
	codec := &countingCodec{Codec: testapi.Codec()}
	s := New(client, codec, testapi.NewWidget, "/registry/decodecache", testapi.Resource)
	ctx := context.Background()

	in := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "ns", Labels: map[string]string{"tier": "gold"}}}
	in.Spec.Color = "red"
	if err := s.Create(ctx, "/ns/w", in, &testapi.Widget{}); err != nil {
		t.Fatal(err)
	}
	afterCreate := codec.decodes.Load()

	first, second := &testapi.Widget{}, &testapi.Widget{}
	if err := s.Get(ctx, "/ns/w", storage.GetOptions{}, first); err != nil {
		t.Fatal(err)
	}
	first.Spec.Color = "changed by the caller"
	first.Labels["tier"] = "changed in place"
	if err := s.Get(ctx, "/ns/w", storage.GetOptions{}, second); err != nil {
		t.Fatal(err)
	}
	if got := codec.decodes.Load() - afterCreate; got != 0 {
		t.Errorf("two gets of unchanged bytes decoded %d times, want 0 (served from the cache)", got)
	}
	if second.Spec.Color != "red" || second.Labels["tier"] != "gold" {
		t.Errorf("a caller's change to a returned object leaked into the cache: %+v", second)
	}
	if second.ResourceVersion == "" {
		t.Error("a cached read has no resourceVersion")
	}

	out := &testapi.Widget{}
	if err := s.GuaranteedUpdate(ctx, "/ns/w", out, false, nil, func(cur runtime.Object) (runtime.Object, error) {
		w := cur.(*testapi.Widget).DeepCopy()
		w.Spec.Color = "blue"
		return w, nil
	}); err != nil {
		t.Fatal(err)
	}
	got := &testapi.Widget{}
	if err := s.Get(ctx, "/ns/w", storage.GetOptions{}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Color != "blue" || got.ResourceVersion != out.ResourceVersion {
		t.Errorf("after an update, get = color %q rv %s, want blue rv %s", got.Spec.Color, got.ResourceVersion, out.ResourceVersion)
	}
}

// TestWriteStartStateNotCached: updates that start from a state this store wrote itself
// decode it without adding it to the decode cache (it is about to be replaced); a read of
// etcd caches what it decodes.
func TestWriteStartStateNotCached(t *testing.T) {
	client, _ := etcdtest.Run(t)
	scheme := testapi.NewScheme()
	ser := jsonserializer.NewSerializer(scheme, scheme, json.SerializerOptions{})
	s := New(client, NewCodec(scheme, ser, testapi.SchemeGroupVersion, testapi.SchemeGroupVersion),
		testapi.NewWidget, "/registry/startstate", testapi.Resource).(*store)
	ctx := context.Background()
	in := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "ns"}}
	if err := s.Create(ctx, "/ns/w", in, &testapi.Widget{}); err != nil {
		t.Fatal(err)
	}
	for _, color := range []string{"blue", "green"} {
		out := &testapi.Widget{}
		if err := s.GuaranteedUpdate(ctx, "/ns/w", out, false, nil, func(cur runtime.Object) (runtime.Object, error) {
			w := cur.(*testapi.Widget).DeepCopy()
			w.Spec.Color = color
			return w, nil
		}); err != nil {
			t.Fatal(err)
		}
		if out.Spec.Color != color {
			t.Errorf("update to %s stored %q", color, out.Spec.Color)
		}
	}
	if n := s.decoded.lru.Len(); n != 0 {
		t.Errorf("after a create and two updates the decode cache holds %d objects, want 0", n)
	}
	got := &testapi.Widget{}
	if err := s.Get(ctx, "/ns/w", storage.GetOptions{}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Color != "green" || s.decoded.lru.Len() != 1 {
		t.Errorf("get = color %q with %d cached objects, want green and 1", got.Spec.Color, s.decoded.lru.Len())
	}
}
