package endpoints

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
// object takes its older one's place; the cache never holds more than encodingCacheSize.
func TestEncodingCacheKeepsWhatIsRead(t *testing.T) {
	c := newEncodingCache()
	widget := func(i int) *testapi.Widget {
		return &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("w%d", i), UID: "u", ResourceVersion: "1"}}
	}
	for i := range encodingCacheSize {
		c.add(widget(i), []byte("x"))
	}
	if _, ok := c.get(widget(0)); !ok {
		t.Fatal("w0 is not cached")
	}
	c.add(widget(encodingCacheSize), []byte("new"))
	if _, ok := c.get(widget(0)); !ok {
		t.Error("w0, just read, was dropped for a new object")
	}
	if _, ok := c.get(widget(1)); ok {
		t.Error("w1, never read, is still cached; want it dropped first")
	}
	if data, ok := c.get(widget(encodingCacheSize)); !ok || string(data) != "new" {
		t.Errorf("the new object: %q, %v", data, ok)
	}
	newer := widget(2)
	newer.ResourceVersion = "2"
	c.add(newer, []byte("two"))
	if data, ok := c.get(newer); !ok || string(data) != "two" {
		t.Errorf("w2's newer state: %q, %v", data, ok)
	}
	if _, ok := c.get(widget(2)); ok {
		t.Error("w2's older state is still cached")
	}
	if len(c.byName) != encodingCacheSize || len(c.slots) != encodingCacheSize {
		t.Errorf("%d objects in %d slots; want %d", len(c.byName), len(c.slots), encodingCacheSize)
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
