package endpoints

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
)

func TestEncodingCache(t *testing.T) {
	c := newEncodingCache()
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w", UID: "u1", ResourceVersion: "5"}}
	c.add(w, []byte("five"))
	if data, ok := c.get(w.DeepCopyObject()); !ok || string(data) != "five" {
		t.Errorf("same state: got %q, %v; want five", data, ok)
	}
	for name, change := range map[string]func(*testapi.Widget){
		"resourceVersion": func(w *testapi.Widget) { w.ResourceVersion = "6" },
		"uid":             func(w *testapi.Widget) { w.UID = "u2" },
		"name":            func(w *testapi.Widget) { w.Name = "other" },
		"namespace":       func(w *testapi.Widget) { w.Namespace = "other" },
	} {
		other := w.DeepCopyObject().(*testapi.Widget)
		change(other)
		if data, ok := c.get(other); ok {
			t.Errorf("another %s: got %q from the cache", name, data)
		}
	}
	noRV := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "x", UID: "u3"}}
	noUID := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "y", ResourceVersion: "7"}}
	large := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "z", UID: "u4", ResourceVersion: "8"}}
	c.add(noRV, []byte("x"))
	c.add(noUID, []byte("y"))
	c.add(large, make([]byte, maxCachedEncoding+1))
	for _, obj := range []*testapi.Widget{noRV, noUID, large} {
		if _, ok := c.get(obj); ok {
			t.Errorf("%s was cached", obj.Name)
		}
	}
	var none *encodingCache
	none.add(w, []byte("five"))
	if _, ok := none.get(w); ok {
		t.Error("a nil cache returned an encoding")
	}
}

// TestEncodingCacheKeepsWhatIsRead: a full cache makes room for a new object by dropping one
// not read since the clock last passed it, not one just read; a newer state of a cached
// object takes its older one's place; the encodings never hold more than
// encodingCacheBytes.
func TestEncodingCacheKeepsWhatIsRead(t *testing.T) {
	c := newEncodingCache()
	widget := func(i int) *testapi.Widget {
		return &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("w%d", i), UID: "u", ResourceVersion: "1"}}
	}
	const n = 4096 // of 8 KiB
	encoding := func(s string) []byte { return append([]byte(s), make([]byte, encodingCacheBytes/n-len(s))...) }
	x := encoding("x")
	for i := range n {
		c.add(widget(i), x)
	}
	if _, ok := c.get(widget(0)); !ok {
		t.Fatal("w0 is not cached")
	}
	c.add(widget(n), encoding("new"))
	if _, ok := c.get(widget(0)); !ok {
		t.Error("w0, just read, was dropped for a new object")
	}
	if _, ok := c.get(widget(1)); ok {
		t.Error("w1, never read, is still cached; want it dropped first")
	}
	if data, ok := c.get(widget(n)); !ok || !bytes.HasPrefix(data, []byte("new")) {
		t.Errorf("the new object: %.3q, %v", data, ok)
	}
	newer := widget(2)
	newer.ResourceVersion = "2"
	c.add(newer, encoding("two"))
	if data, ok := c.get(newer); !ok || !bytes.HasPrefix(data, []byte("two")) {
		t.Errorf("w2's newer state: %.3q, %v", data, ok)
	}
	if _, ok := c.get(widget(2)); ok {
		t.Error("w2's older state is still cached")
	}
	if len(c.byName) != n || c.bytes != encodingCacheBytes {
		t.Errorf("%d objects of %d bytes in all; want %d of %d", len(c.byName), c.bytes, n, encodingCacheBytes)
	}
	// A larger encoding takes the room of as many as it needs.
	c.add(widget(n+1), make([]byte, 2*encodingCacheBytes/n))
	if len(c.byName) != n-1 || c.bytes != encodingCacheBytes {
		t.Errorf("after a double-sized one: %d objects of %d bytes in all; want %d of %d", len(c.byName), c.bytes, n-1, encodingCacheBytes)
	}
}

// TestEncodingCacheDropsWhatIsNotRead: while the cache holds encodings its aging timer is
// set; each aging drops the encodings not read since the one before and keeps the others;
// once none is left, the cache holds nothing and its timer is not set again.
func TestEncodingCacheDropsWhatIsNotRead(t *testing.T) {
	c := newEncodingCache()
	widget := func(name string) *testapi.Widget {
		return &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: "u", ResourceVersion: "1"}}
	}
	if c.aging {
		t.Fatal("an empty cache set its aging timer")
	}
	c.add(widget("read"), []byte("r"))
	c.add(widget("unread"), []byte("u"))
	if !c.aging {
		t.Fatal("a cache holding encodings did not set its aging timer")
	}
	c.get(widget("read"))
	c.age()
	for name, want := range map[string]bool{"read": true, "unread": false} {
		if _, ok := c.get(widget(name)); ok != want {
			t.Errorf("after one aging, %s cached: %v, want %v", name, ok, want)
		}
	}
	if !c.aging {
		t.Error("the timer is not set again while an encoding is left")
	}
	c.age() // "read" was read again just above: kept
	c.age()
	if len(c.byName) != 0 || c.bytes != 0 || c.slots != nil || c.aging {
		t.Errorf("after two agings without reads: %d encodings, %d bytes, %d slots, timer set %v; want none, none, none, false",
			len(c.byName), c.bytes, len(c.slots), c.aging)
	}
}

// TestWriteJSONCachedWritesRememberedBytes: a second GET of the same object state writes the
// bytes of the first (the object is not encoded again: a change that keeps uid and
// resourceVersion, which storage never makes, does not show); a new resourceVersion is
// encoded afresh.
func TestWriteJSONCachedWritesRememberedBytes(t *testing.T) {
	scheme, err := install.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	s := &scope{serializers: newSerializers(SchemeKinds(scheme)), gv: v1.SchemeGroupVersion,
		kind: v1.SchemeGroupVersion.WithKind("Widget"), encodings: newEncodingCache()}
	obj := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w", UID: "u1", ResourceVersion: "5"},
		Spec: testapi.WidgetSpec{Color: "red"}}
	get := func() []byte {
		t.Helper()
		rec := httptest.NewRecorder()
		s.writeJSONCached(rec, obj)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != mediaJSON {
			t.Fatalf("got %d %v: %s", rec.Code, rec.Header(), rec.Body)
		}
		return rec.Body.Bytes()
	}
	first := get()
	if !strings.Contains(string(first), `"apiVersion":"test.apigen.dev/v1"`) || !strings.Contains(string(first), `"color":"red"`) {
		t.Fatalf("first response %s: want the v1 Widget", first)
	}
	obj.Spec.Color = "blue"
	if second := get(); !bytes.Equal(second, first) {
		t.Errorf("same uid and resourceVersion: got %s, want the remembered %s", second, first)
	}
	obj.ResourceVersion = "6"
	if third := get(); !strings.Contains(string(third), `"color":"blue"`) || !strings.Contains(string(third), `"resourceVersion":"6"`) {
		t.Errorf("new resourceVersion: got %s, want the blue Widget at 6", third)
	}
}

// TestEncodingCacheTakesTheReadersStrings: a hit through another copy of the object, whose
// name, uid and resourceVersion are equal but held in other memory (the watch cache keeps a
// copy decoded after the one a first list decoded for itself), leaves the entry holding that
// copy's strings, so that the next lookups compare pointers, not bytes; a hit through the
// first copy again takes its strings back.
func TestEncodingCacheTakesTheReadersStrings(t *testing.T) {
	c := newEncodingCache()
	first := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w", UID: "u1", ResourceVersion: "5"}}
	c.add(first, []byte("five"))
	kept := first.DeepCopyObject().(*testapi.Widget)
	kept.Name, kept.UID, kept.ResourceVersion = strings.Clone(first.Name), types.UID(strings.Clone(string(first.UID))), strings.Clone(first.ResourceVersion)
	holds := func(w *testapi.Widget) bool {
		c.mu.RLock()
		defer c.mu.RUnlock()
		e := c.byName[objectName{"ns", "w"}]
		return e != nil && sameBytes(e.name.name, w.Name) && sameBytes(e.uid, w.UID) && sameBytes(e.resourceVersion, w.ResourceVersion)
	}
	if !holds(first) || holds(kept) {
		t.Fatal("the entry does not hold the first copy's strings only")
	}
	for _, w := range []*testapi.Widget{kept, first} {
		if data, ok := c.get(w); !ok || string(data) != "five" {
			t.Fatalf("got %q, %v; want five", data, ok)
		}
		if !holds(w) {
			t.Errorf("after a hit through the copy %p the entry still holds the other copy's strings", w)
		}
	}
}

// BenchmarkEncodingCacheGet reads the encodings of 500 cached objects per op, as a list of
// 500 does, from every CPU at once (-cpu 16 for a server's many concurrent lists).
func BenchmarkEncodingCacheGet(b *testing.B) {
	c := newEncodingCache()
	objs := make([]*testapi.Widget, 500)
	for i := range objs {
		objs[i] = &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("w%04d", i), UID: "u", ResourceVersion: "1"}}
		c.add(objs[i], []byte("x"))
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for _, o := range objs {
				if _, ok := c.get(o); !ok {
					b.Fatal("not cached")
				}
			}
		}
	})
}

// BenchmarkEncodingCacheGetOtherCopies reads the encodings of 10,000 cached objects per op
// (an unpaged list of them) through copies whose names, uids and resourceVersions are held in
// other memory than those the encodings were added with, as a list reads the copies the watch
// cache keeps after a first list decoded others for itself; "added" reads the copies they were
// added with, for comparison.
func BenchmarkEncodingCacheGetOtherCopies(b *testing.B) {
	c := newEncodingCache()
	added := make([]*testapi.Widget, 10000)
	other := make([]*testapi.Widget, len(added))
	for i := range added {
		added[i] = &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "bench-list", Name: fmt.Sprintf("bench-object-%07d", i),
			UID: types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i)), ResourceVersion: fmt.Sprint(100000 + i)}}
		c.add(added[i], []byte("x"))
		o := added[i].DeepCopyObject().(*testapi.Widget)
		o.Name, o.UID, o.ResourceVersion = strings.Clone(o.Name), types.UID(strings.Clone(string(o.UID))), strings.Clone(o.ResourceVersion)
		other[i] = o
	}
	for name, objs := range map[string][]*testapi.Widget{"added": added, "other": other} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for _, o := range objs {
					if _, ok := c.get(o); !ok {
						b.Fatal("not cached")
					}
				}
			}
		})
	}
}
