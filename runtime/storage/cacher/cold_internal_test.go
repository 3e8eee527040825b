package cacher

import (
	goruntime "runtime"
	"testing"
	"weak"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

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

// TestHistoryKeepsNoDecodedCopyOfAColdEntry: the history's events read their objects
// through the cache's entries, and sending an event is not a read of its object: a new
// object sent to a watcher still goes cold at the next pass, after which nothing of the
// cache holds its decoded object (the collector frees it), and a watch replaying the event
// from the history gets an equal object, decoded again.
func TestHistoryKeepsNoDecodedCopyOfAColdEntry(t *testing.T) {
	f := newFreezer(testapi.NewWidget, newInterner())
	s := newState(100, 1<<30)
	obj := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "2", Labels: map[string]string{"x": "y"}}}
	f.makeDict(func(yield func(runtime.Object) bool) { yield(obj) })
	e := newEntryOf("/ns/a", obj, 2, 10, f)
	sent := &event{typ: watch.Added, key: e.key, ns: "ns", cur: e, rev: 2, size: 10}
	s.apply(sent)
	if sent.object() != runtime.Object(obj) {
		t.Fatalf("the event sends %v, want the cached object", sent.object())
	}
	decoded := weak.Make(obj)
	obj = nil
	if e.freeze(); !e.isCold() {
		t.Fatal("a new object sent to a watcher is still decoded after a pass: sending it counted as a read")
	}
	goruntime.GC()
	if decoded.Value() != nil {
		t.Fatal("the decoded object of an entry made cold is still held (by the history's event)")
	}
	ev := s.history.at(0)
	got, ok := ev.object().(*testapi.Widget)
	if !ok || got.Name != "a" || got.Labels["x"] != "y" || ev.typ != watch.Added {
		t.Errorf("the history's event replays %s %+v; want ADDED with the widget a, labels x=y", ev.typ, ev.object())
	}
}
