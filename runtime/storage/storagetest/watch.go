package storagetest

import (
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// startWatch starts a recursive watch of namespace "ns", stopped in cleanup.
func startWatch(t *testing.T, s storage.Interface, opts storage.ListOptions) watch.Interface {
	t.Helper()
	opts.Recursive = true
	w, err := s.Watch(testContext(t), "/ns/", opts)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	t.Cleanup(w.Stop)
	return w
}

// next returns the next event, failing the test after waitTimeout or when the watch ends.
func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch ended while an event was expected")
		}
		return ev
	case <-time.After(waitTimeout):
		t.Fatalf("no watch event within %v", waitTimeout)
	}
	return watch.Event{}
}

// expect reads the next event and checks its type and widget name (and color, if not "").
func expect(t *testing.T, w watch.Interface, typ watch.EventType, name, color string) *testapi.Widget {
	t.Helper()
	ev := next(t, w)
	got, ok := ev.Object.(*testapi.Widget)
	if ev.Type != typ || !ok || got.Name != name || (color != "" && got.Spec.Color != color) {
		t.Fatalf("event %s %#v; want %s of %s %s", ev.Type, ev.Object, typ, color, name)
	}
	if got.ResourceVersion == "" {
		t.Errorf("%s event of %s has no resourceVersion", typ, name)
	}
	return got
}

// expectNone checks that no event arrives for a short while.
func expectNone(t *testing.T, w watch.Interface) {
	t.Helper()
	select {
	case ev := <-w.ResultChan():
		t.Errorf("unexpected event %s %#v", ev.Type, ev.Object)
	case <-time.After(200 * time.Millisecond):
	}
}

func testWatchFromRV(t *testing.T, b Backend) {
	s := b.New(t)
	created := create(t, s, "ns", "a", "red", nil)
	w := startWatch(t, s, storage.ListOptions{ResourceVersion: created.ResourceVersion})
	updated := update(t, s, "ns", "a", func(w *testapi.Widget) { w.Spec.Color = "blue" })
	create(t, s, "ns", "b", "red", nil)
	create(t, s, "other", "x", "red", nil)
	if err := s.Delete(testContext(t), key("ns", "a"), &testapi.Widget{}, nil, nil); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if got := expect(t, w, watch.Modified, "a", "blue"); got.ResourceVersion != updated.ResourceVersion {
		t.Errorf("MODIFIED resourceVersion %s, want %s", got.ResourceVersion, updated.ResourceVersion)
	}
	expect(t, w, watch.Added, "b", "red")
	expect(t, w, watch.Deleted, "a", "blue")
	expectNone(t, w)
}

func testWatchInitialState(t *testing.T, b Backend) {
	s := b.New(t)
	create(t, s, "ns", "a", "red", nil)
	create(t, s, "ns", "b", "red", nil)
	for _, rv := range []string{"", "0"} {
		w := startWatch(t, s, storage.ListOptions{ResourceVersion: rv})
		expect(t, w, watch.Added, "a", "")
		expect(t, w, watch.Added, "b", "")
		expectNone(t, w)
		w.Stop()
		if _, ok := <-w.ResultChan(); ok {
			t.Errorf("result channel still open after Stop")
		}
	}
	w := startWatch(t, s, storage.ListOptions{})
	expect(t, w, watch.Added, "a", "")
	expect(t, w, watch.Added, "b", "")
	create(t, s, "ns", "c", "red", nil)
	expect(t, w, watch.Added, "c", "")
}

// testWatchStartsAtReturn: a watch from "" starts where it stands when Watch returns, as
// kube-apiserver's does: writes made right after are change events (ADDED, MODIFIED,
// DELETED), never folded into the initial state or lost behind it.
func testWatchStartsAtReturn(t *testing.T, b Backend) {
	s := b.New(t)
	w := startWatch(t, s, storage.ListOptions{})
	create(t, s, "ns", "a", "red", nil)
	update(t, s, "ns", "a", func(w *testapi.Widget) { w.Spec.Color = "blue" })
	if err := s.Delete(testContext(t), key("ns", "a"), &testapi.Widget{}, nil, nil); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	expect(t, w, watch.Added, "a", "red")
	expect(t, w, watch.Modified, "a", "blue")
	expect(t, w, watch.Deleted, "a", "blue")
	expectNone(t, w)
}

func testWatchDeletedObject(t *testing.T, b Backend) {
	s := b.New(t)
	created := create(t, s, "ns", "a", "red", nil)
	w := startWatch(t, s, storage.ListOptions{ResourceVersion: created.ResourceVersion})
	out := &testapi.Widget{}
	if err := s.Delete(testContext(t), key("ns", "a"), out, nil, nil); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	got := expect(t, w, watch.Deleted, "a", "red")
	if got.ResourceVersion != out.ResourceVersion || got.ResourceVersion == created.ResourceVersion {
		t.Errorf("DELETED resourceVersion %s; want the delete's %s (created at %s)",
			got.ResourceVersion, out.ResourceVersion, created.ResourceVersion)
	}
}

func testWatchSelectorTransitions(t *testing.T, b Backend) {
	s := b.New(t)
	created := create(t, s, "ns", "a", "blue", map[string]string{"color": "blue"})
	pred := storage.SelectionPredicate{Label: labels.SelectorFromSet(labels.Set{"color": "red"}), GetAttrs: testapi.GetAttrs}
	w := startWatch(t, s, storage.ListOptions{ResourceVersion: created.ResourceVersion, Predicate: pred})
	paint := func(color string) {
		update(t, s, "ns", "a", func(w *testapi.Widget) { w.Spec.Color, w.Labels["color"] = color, color })
	}
	paint("red")
	expect(t, w, watch.Added, "a", "red")
	update(t, s, "ns", "a", func(w *testapi.Widget) { w.Spec.Size = 3 })
	expect(t, w, watch.Modified, "a", "red")
	paint("blue")
	expect(t, w, watch.Deleted, "a", "red")
	update(t, s, "ns", "a", func(w *testapi.Widget) { w.Spec.Size = 4 })
	expectNone(t, w)
}

func testWatchCompacted(t *testing.T, b Backend) {
	if b.Compact == nil {
		t.Skip("backend cannot compact")
	}
	s := b.New(t)
	created := create(t, s, "ns", "a", "red", nil)
	update(t, s, "ns", "a", func(w *testapi.Widget) { w.Spec.Size = 2 })
	update(t, s, "ns", "a", func(w *testapi.Widget) { w.Spec.Size = 3 })
	b.Compact(t)
	opts := storage.ListOptions{Recursive: true, ResourceVersion: created.ResourceVersion}
	w, err := s.Watch(testContext(t), "/ns/", opts)
	if err != nil {
		if !storage.IsExpired(err) {
			t.Fatalf("Watch from a compacted revision: got %v, want Expired", err)
		}
		return
	}
	t.Cleanup(w.Stop)
	ev := next(t, w)
	st, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok || st.Code != http.StatusGone || st.Status != metav1.StatusFailure ||
		(st.Reason != metav1.StatusReasonExpired && st.Reason != metav1.StatusReasonGone) {
		t.Fatalf("first event from a compacted revision: %s %#v; want ERROR with a 410 Expired Status", ev.Type, ev.Object)
	}
	select {
	case _, open := <-w.ResultChan():
		if open {
			t.Errorf("watch went on after its 410 ERROR event")
		}
	case <-time.After(waitTimeout):
		t.Errorf("watch did not end after its 410 ERROR event")
	}
}

func testBookmarks(t *testing.T, b Backend) {
	s := b.New(t)
	created := create(t, s, "ns", "a", "red", nil)
	w := startWatch(t, s, storage.ListOptions{ResourceVersion: created.ResourceVersion, ProgressNotify: true})
	// etcd reports progress only once its revision has reached the watch's start: write
	// elsewhere, outside the watched namespace.
	other := create(t, s, "other", "x", "red", nil)
	wait := waitTimeout
	if b.BookmarkInterval > 0 {
		wait = 3 * b.BookmarkInterval
	}
	deadline := time.After(wait)
	for {
		select {
		case ev := <-w.ResultChan():
			got, ok := ev.Object.(*testapi.Widget)
			if ev.Type != watch.Bookmark || !ok || got.ResourceVersion == "" {
				t.Fatalf("event %s %#v; want a BOOKMARK of an empty Widget with a resourceVersion", ev.Type, ev.Object)
			}
			if rvOf(t, got) < rvOf(t, other) {
				t.Errorf("BOOKMARK at %s, before the last write %s", got.ResourceVersion, other.ResourceVersion)
			}
			if got.Name != "" || got.Spec != (testapi.WidgetSpec{}) {
				t.Errorf("BOOKMARK object carries more than a resourceVersion: %#v", got)
			}
			return
		case <-deadline:
			t.Fatalf("no BOOKMARK within %v", wait)
		}
	}
}

func testSendInitialEvents(t *testing.T, b Backend) {
	s := b.New(t)
	create(t, s, "ns", "a", "red", nil)
	last := create(t, s, "ns", "b", "red", nil)
	yes := true
	w := startWatch(t, s, storage.ListOptions{SendInitialEvents: &yes, ProgressNotify: true,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	expect(t, w, watch.Added, "a", "")
	expect(t, w, watch.Added, "b", "")
	ev := next(t, w)
	bm, ok := ev.Object.(*testapi.Widget)
	if ev.Type != watch.Bookmark || !ok || bm.Annotations[metav1.InitialEventsAnnotationKey] != "true" {
		t.Fatalf("event after the initial ADDED events: %s %#v; want the initial-events-end BOOKMARK", ev.Type, ev.Object)
	}
	if rvOf(t, bm) < rvOf(t, last) {
		t.Errorf("initial-events-end BOOKMARK at %s, before the last write %s", bm.ResourceVersion, last.ResourceVersion)
	}
	create(t, s, "ns", "c", "red", nil)
	for {
		ev := next(t, w)
		if ev.Type == watch.Bookmark {
			continue
		}
		if got, ok := ev.Object.(*testapi.Widget); ev.Type != watch.Added || !ok || got.Name != "c" {
			t.Fatalf("live event: %s %#v; want ADDED c", ev.Type, ev.Object)
		}
		return
	}
}
