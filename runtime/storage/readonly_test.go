package storage_test

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// TestShareable: typed objects with an ObjectMeta value can be shared shallowly;
// unstructured ones (their metadata is inside the shared map) cannot.
func TestShareable(t *testing.T) {
	for _, c := range []struct {
		obj  runtime.Object
		want bool
	}{{&testapi.Widget{}, true}, {&unstructured.Unstructured{}, false}, {&metav1.Status{}, false}} {
		if got := storage.Shareable(c.obj); got != c.want {
			t.Errorf("Shareable(%T) = %v, want %v", c.obj, got, c.want)
		}
	}
}

// TestCopyFor: a reader gets a shallow copy of a shareable object (its own metadata value,
// the labels map shared), a writer a deep copy; an unstructured object is always copied deeply.
func TestCopyFor(t *testing.T) {
	sameMap := func(a, b any) bool { return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() }
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}}

	read := storage.CopyFor(w, true).(*testapi.Widget)
	if read == w || !sameMap(read.Labels, w.Labels) {
		t.Errorf("a reader's copy: same object %v, shares the labels %v; want a new object sharing them", read == w, sameMap(read.Labels, w.Labels))
	}
	read.ResourceVersion = "7"
	if w.ResourceVersion != "" {
		t.Errorf("setting the reader's resourceVersion changed the original's to %q", w.ResourceVersion)
	}
	if own := storage.CopyFor(w, false).(*testapi.Widget); sameMap(own.Labels, w.Labels) || own.Labels["app"] != "x" {
		t.Errorf("a writer's copy: labels %v, shared %v; want an equal map of its own", own.Labels, sameMap(own.Labels, w.Labels))
	}
	u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a"}}}
	if cp := storage.CopyFor(u, true).(*unstructured.Unstructured); sameMap(cp.Object, u.Object) {
		t.Errorf("a reader's copy of an unstructured object shares its map; want a deep copy")
	}
}
