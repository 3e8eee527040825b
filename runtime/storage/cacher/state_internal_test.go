package cacher

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// BenchmarkApply measures the reflector's step for one event of a cache of 100,000 objects:
// a create of a new key, and an update of an existing one (the state, with its snapshot,
// history and index upkeep).
func BenchmarkApply(b *testing.B) {
	const objects = 100_000
	for _, update := range []bool{false, true} {
		name := "create"
		if update {
			name = "update"
		}
		b.Run(name, func(b *testing.B) {
			s := newState(1000, 1<<30)
			entries := make([]*entry, objects)
			for i := range entries {
				key := fmt.Sprintf("/ns/w%07d", i)
				entries[i] = newEntryOf(key, &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: key[4:], Namespace: "ns"}}, 1, 100, nil)
			}
			s.replace(entries, 1)
			rev := int64(1)
			b.ReportAllocs()
			for b.Loop() {
				rev++
				key := fmt.Sprintf("/ns/w%07d", objects+int(rev))
				if update {
					key = fmt.Sprintf("/ns/w%07d", (rev*7919)%objects)
				}
				obj := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: key[4:], Namespace: "ns", ResourceVersion: formatRevision(rev)}}
				ev := &event{typ: watch.Added, key: key, ns: "ns", cur: newEntryOf(key, obj, rev, 100, nil), rev: rev, size: 100}
				s.apply(ev)
				if (ev.typ == watch.Modified) != update {
					b.Fatalf("event %s for %s", ev.typ, key)
				}
			}
		})
	}
}

// TestApplyPreviousState: apply reports a put of a key the cache holds as MODIFIED with the
// previous object, a new key as ADDED, and a delete with the object it removes; earlier
// snapshots keep their objects.
func TestApplyPreviousState(t *testing.T) {
	s := newState(100, 1<<30)
	w := func(name string, rev int64) *entry {
		return newEntryOf("/ns/"+name, &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", ResourceVersion: formatRevision(rev)}}, rev, 10, nil)
	}
	step := func(typ watch.EventType, e *entry) *event {
		ev := &event{typ: typ, key: e.key, ns: "ns", cur: e, rev: e.rev, size: e.size}
		s.apply(ev)
		return ev
	}
	a1 := w("a", 2)
	if ev := step(watch.Added, a1); ev.typ != watch.Added || ev.prev != nil {
		t.Fatalf("first put: %s with previous %v; want ADDED without", ev.typ, ev.previous())
	}
	first := s.current
	a2 := w("a", 3)
	if ev := step(watch.Added, a2); ev.typ != watch.Modified || ev.previous() != a1.peek() || ev.size != 20 {
		t.Fatalf("second put: %s with previous %v, size %d; want MODIFIED with the first object, size 20", ev.typ, ev.previous(), ev.size)
	}
	if ev := step(watch.Deleted, w("a", 4)); ev.typ != watch.Deleted || ev.previous() != a2.peek() {
		t.Fatalf("delete: %s with previous %v; want DELETED with the second object", ev.typ, ev.previous())
	}
	if got, ok := first.Get(&entry{key: "/ns/a"}); !ok || got != a1 {
		t.Errorf("the snapshot after the first put holds %v, %v; want its entry", got, ok)
	}
	if s.current.Len() != 0 {
		t.Errorf("current holds %d entries after the delete, want 0", s.current.Len())
	}
}
