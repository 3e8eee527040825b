package endpoints

import (
	"bytes"
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
