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
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	"github.com/apigen-dev/apigen/runtime/request"
)

// recordingStorage is a Storage that records whether its lists and watches were asked for
// read-only results and runs beforeWatch (when set) at the start of its first watch, which
// then fails as a watch from a compacted resourceVersion does.
type recordingStorage struct {
	Storage
	list, watch atomic.Bool
	beforeWatch func()
	watches     atomic.Int32
}

func (r *recordingStorage) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	r.list.Store(request.ReadOnlyResults(ctx))
	return r.Storage.List(ctx, opts)
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
// reads read-only, and when its watch fails as after a compaction it lists again and sends
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
	if _, _, err := stores.Widgets.Delete(ns("m"), "c", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := log.waitFor(t, 6); got[5] != "delete c" {
		t.Errorf("after the relist the watch sent %q, want delete c", got[5:])
	}
}
