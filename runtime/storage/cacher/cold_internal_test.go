package cacher

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// noCodec is an object type without a generated JSON codec.
type noCodec struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

func (n *noCodec) DeepCopyObject() runtime.Object { c := *n; return &c }

// TestObjectsThatCannotGoCold: an object whose JSON does not decode to an equal object (an
// empty, non-nil map under omitempty decodes as nil) stays decoded, and is not encoded again
// by later passes; an equal one goes cold; a type without a generated codec gets no freezer.
func TestObjectsThatCannotGoCold(t *testing.T) {
	if f := newFreezer(func() runtime.Object { return &noCodec{} }, newInterner()); f != nil {
		t.Fatalf("a type without a generated codec got a freezer; want its objects kept decoded")
	}
	f := newFreezer(testapi.NewWidget, newInterner())
	unequal := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{}}}
	equal := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns", Labels: map[string]string{"x": "y"}}}
	f.makeDict(func(yield func(runtime.Object) bool) { yield(equal) })
	a, b := newEntryOf("/ns/a", unequal, 1, 0, f), newEntryOf("/ns/b", equal, 2, 0, f)
	for pass := range 3 {
		a.freeze()
		b.freeze()
		if a.isCold() {
			t.Fatalf("pass %d: a widget whose JSON reads back with nil labels went cold", pass)
		}
	}
	if !a.body.Load().hot || f.unequal.Load() != 1 {
		t.Errorf("the unequal widget: hot %v, encoded %d times; want marked hot after one encoding", a.body.Load().hot, f.unequal.Load())
	}
	if !b.isCold() {
		t.Fatalf("a widget whose JSON reads back equal is still decoded after three passes")
	}
	if got := b.object(); got.(*testapi.Widget).Labels["x"] != "y" || got == runtime.Object(equal) {
		t.Errorf("the cold widget read back as %+v; want a decoded copy with labels x=y", got)
	}
}
