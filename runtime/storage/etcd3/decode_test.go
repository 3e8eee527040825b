package etcd3

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// TestStoreUnderAWatchCacheHoldsNoCopies: a store under a watch cache keeps no decoded
// objects of its own (the cache holds each object once), and the stored bytes of only its
// recentStates latest writes: after more creates than that, and gets and updates, its decode
// cache is gone, every remembered state has a digest, and the oldest hold no bytes.
func TestStoreUnderAWatchCacheHoldsNoCopies(t *testing.T) {
	client, _ := etcdtest.Run(t)
	s := New(client, testapi.Codec(), testapi.NewWidget, "/registry/nocopies", testapi.Resource).(*store)
	c, err := cacher.New(cacher.Config{Storage: s, Resource: testapi.Resource, NewFunc: testapi.NewWidget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	ctx := context.Background()
	const n = recentStates + 4
	for i := range n {
		name := fmt.Sprintf("w%d", i)
		in := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
		if err := c.Create(ctx, "/ns/"+name, in, &testapi.Widget{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := n - 3; i < n; i++ {
		name := fmt.Sprintf("w%d", i)
		if err := c.Get(ctx, "/ns/"+name, storage.GetOptions{}, &testapi.Widget{}); err != nil {
			t.Fatal(err)
		}
		if err := c.GuaranteedUpdate(ctx, "/ns/"+name, &testapi.Widget{}, false, nil, func(in runtime.Object) (runtime.Object, error) {
			w := in.(*testapi.Widget)
			w.Spec.Size = int32(i)
			return w, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if s.decoded != nil {
		t.Errorf("the store under a watch cache keeps a decode cache of %d objects", s.decoded.lru.Len())
	}
	withBytes := 0
	for i := range n {
		k := fmt.Sprintf("%s/ns/w%d", s.prefix, i)
		known, ok := s.states.get(k)
		if !ok {
			t.Fatalf("no state remembered for %s", k)
		}
		if v, _ := s.states.lru.Get(k); v.(knownState).data != nil || v.(knownState).digest.n == 0 {
			t.Errorf("remembered state of %s: %d bytes held, digest of %d bytes; want a digest and no bytes",
				k, len(v.(knownState).data), v.(knownState).digest.n)
		}
		if known.data != nil {
			withBytes++
			if i < 4 {
				t.Errorf("%s, one of the oldest writes, still has its %d bytes", k, len(known.data))
			}
		}
	}
	if withBytes != recentStates {
		t.Errorf("%d of %d states hold their bytes, want the %d latest", withBytes, n, recentStates)
	}
}

// TestKnownStateHolds: a remembered state with bytes compares them exactly; one with only a
// digest compares digests; an absent key's state holds nothing.
func TestKnownStateHolds(t *testing.T) {
	data := []byte(`{"kind":"Widget"}`)
	other := []byte(`{"kind":"Gadget"}`)
	for _, tc := range []struct {
		name  string
		known knownState
		data  []byte
		want  bool
	}{
		{"same bytes", knownState{rev: 1, data: data}, data, true},
		{"other bytes", knownState{rev: 1, data: data}, other, false},
		{"same digest", knownState{rev: 1, digest: digestOf(data)}, data, true},
		{"other digest", knownState{rev: 1, digest: digestOf(data)}, other, false},
		{"absent", knownState{}, []byte{}, false},
	} {
		if got := tc.known.holds(tc.data); got != tc.want {
			t.Errorf("%s: holds = %v, want %v", tc.name, got, tc.want)
		}
	}
}
