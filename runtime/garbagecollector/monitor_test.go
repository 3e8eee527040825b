package garbagecollector

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	"github.com/apigen-dev/apigen/runtime/request"
)

// recordingStorage is a Storage that records whether its lists and watches were asked for
// read-only results (and its lists for transient reads), how many lists it served and the most items one returned, and runs
// beforeWatch (when set) at the start of its first watch, which then fails as a watch from a
// compacted resourceVersion does.
type recordingStorage struct {
	Storage
	list, watch     atomic.Bool
	transient       atomic.Bool
	lists, maxItems atomic.Int64
	beforeWatch     func()
	watches         atomic.Int32
}

func (r *recordingStorage) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	r.list.Store(request.ReadOnlyResults(ctx))
	r.transient.Store(request.TransientReads(ctx))
	list, err := r.Storage.List(ctx, opts)
	if err == nil {
		r.lists.Add(1)
		if n := int64(meta.LenList(list)); n > r.maxItems.Load() {
			r.maxItems.Store(n)
		}
	}
	return list, err
}

func (r *recordingStorage) Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	r.watch.Store(request.ReadOnlyResults(ctx))
	if r.watches.Add(1) == 1 && r.beforeWatch != nil {
		r.beforeWatch()
		w := watch.NewFake()
		go w.Error(&apierrors.NewResourceExpired("too old resource version").ErrStatus)
		return w, nil
	}
	return r.Storage.Watch(ctx, opts)
}

// changeLog collects a monitor's events as "type name" lines.
type changeLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *changeLog) add(ev *event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := map[eventType]string{addEvent: "add", updateEvent: "update", deleteEvent: "delete"}[ev.eventType] + " " + ev.obj.(*objectMetadata).name
	if ev.eventType == updateEvent {
		line += " from " + ev.oldObj.(*objectMetadata).resourceVersion
	}
	l.lines = append(l.lines, line)
}

// waitFor waits (bounded) until the log holds n lines and returns them.
func (l *changeLog) waitFor(t *testing.T, n int) []string {
	t.Helper()
	for range 500 {
		l.mu.Lock()
		got := slices.Clone(l.lines)
		l.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Fatalf("the monitor sent %q, want %d events", l.lines, n)
	return nil
}

// TestMonitorRelistsAfterAFailedWatch: a monitor lists (one add per object, then synced),
// reads read-only (its lists transient), and when its watch fails as after a compaction it lists again and sends
// the difference with what it kept, as a client-go informer's relist: an update for an
// object still there (from the metadata kept), an add for a new one, a delete for one gone.
// Then it watches from the new list.
func TestMonitorRelistsAfterAFailedWatch(t *testing.T) {
	_, stores, _ := newTestGroup(t)
	create := func(name string) *testapi.Widget {
		out, err := stores.Widgets.Create(ns("m"), &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: testapi.WidgetSpec{Size: 1, Color: "red"}}, &metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return out.(*testapi.Widget)
	}
	a := create("a")
	create("b")
	rec := &recordingStorage{Storage: stores.Widgets}
	rec.beforeWatch = func() {
		if _, _, err := stores.Widgets.Delete(ns("m"), "b", &metav1.DeleteOptions{}); err != nil {
			t.Error(err)
		}
		create("c")
	}
	var log changeLog
	m := newMonitor(Resource{GroupVersionResource: schema.GroupVersionResource{Group: "test.apigen.dev", Version: "v1", Resource: "widgets"},
		Kind: "Widget", Namespaced: true, Storage: rec}, log.add, slog.New(slog.DiscardHandler))
	m.run(context.Background())
	defer m.halt()
	got := log.waitFor(t, 5)
	if !m.hasSynced() {
		t.Error("the monitor is not synced after its first list")
	}
	want := []string{"add a", "add b", "update a from " + a.ResourceVersion, "add c", "delete b"}
	if first := slices.Sorted(slices.Values(got[:2])); !slices.Equal(first, want[:2]) {
		t.Errorf("first list sent %q, want the adds of a and b", got[:2])
	}
	if rest := got[2:]; len(rest) != 3 || !slices.Contains(rest, want[2]) || !slices.Contains(rest, want[3]) || rest[2] != want[4] {
		t.Errorf("the relist sent %q, want %q (the delete last)", rest, want[2:])
	}
	if !rec.list.Load() || !rec.watch.Load() {
		t.Errorf("read-only list: %v, watch: %v; want both", rec.list.Load(), rec.watch.Load())
	}
	if !rec.transient.Load() {
		t.Error("the relist did not ask for transient reads: it would leave a watch cache's objects decoded")
	}
	if _, _, err := stores.Widgets.Delete(ns("m"), "c", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := log.waitFor(t, 6); got[5] != "delete c" {
		t.Errorf("after the relist the watch sent %q, want delete c", got[5:])
	}
}

// TestMonitorListsInPages: a monitor lists in pages (10,000 by default; 2
// here), so a list storage serves holds one page of decoded objects at a time, and sends one
// add per object of every page before it is synced.
func TestMonitorListsInPages(t *testing.T) {
	_, stores, _ := newTestGroup(t)
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		if _, err := stores.Widgets.Create(ns("p"), &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: testapi.WidgetSpec{Size: 1, Color: "red"}}, &metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rec := &recordingStorage{Storage: stores.Widgets}
	var log changeLog
	m := newMonitor(Resource{GroupVersionResource: schema.GroupVersionResource{Group: "test.apigen.dev", Version: "v1", Resource: "widgets"},
		Kind: "Widget", Namespaced: true, Storage: rec}, log.add, slog.New(slog.DiscardHandler))
	m.pageSize = 2
	m.run(context.Background())
	defer m.halt()
	got := log.waitFor(t, 5)
	if want := []string{"add a", "add b", "add c", "add d", "add e"}; !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Errorf("the first list sent %q, want %q", got, want)
	}
	for i := 0; !m.hasSynced(); i++ {
		if i == 500 {
			t.Fatal("the monitor is not synced 5s after its first list's events")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if lists, most := rec.lists.Load(), rec.maxItems.Load(); lists != 3 || most != 2 {
		t.Errorf("the first list of 5 widgets took %d lists of at most %d items; want 3 pages of at most 2", lists, most)
	}
}
