package cacher

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// liveWatcher returns a registered, live watcher of everything with a result buffer of n,
// whose consumer's terminations are counted in terminated.
func liveWatcher(s *watcherSet, n int, terminated *atomic.Int32) *cacheWatcher {
	ctx := request.WithWatchTerminator(context.Background(), func() { terminated.Add(1) })
	w := &cacheWatcher{ctx: ctx, key: "/", recursive: true, sharedObjects: true, live: true,
		result: make(chan watch.Event, n), done: make(chan struct{}), exited: make(chan struct{})}
	s.mu.Lock()
	s.addLocked(w)
	s.mu.Unlock()
	return w
}

// widgetEvent returns an ADDED event of a widget at rev.
func widgetEvent(rev int64) *event {
	obj := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "ns", ResourceVersion: formatRevision(rev)}}
	return &event{typ: watch.Added, key: "/ns/w", ns: "ns", cur: newEntryOf("/ns/w", obj, rev, 0, nil), rev: rev}
}

// TestDispatchWaitsWithinBudget: an event for a watcher whose buffer is full waits for it
// within the dispatch budget, as kube's cacher, with the set's lock released (a watcher
// registering meanwhile is not held up): a consumer that reads again 20ms later gets it and
// is not cut off.
func TestDispatchWaitsWithinBudget(t *testing.T) {
	s := newWatcherSet()
	var terminated atomic.Int32
	w := liveWatcher(s, 1, &terminated)
	s.dispatch(widgetEvent(1)) // fills the buffer
	read := make(chan int64, 2)
	go func() {
		time.Sleep(20 * time.Millisecond)
		s.mu.Lock() // a registration, while dispatch waits
		s.mu.Unlock()
		for range 2 {
			ev := <-w.result
			read <- mustRev(t, ev)
		}
	}()
	s.dispatch(widgetEvent(2))
	if w.ended || terminated.Load() != 0 {
		t.Fatal("the watcher was cut off though its consumer read within the budget")
	}
	for _, want := range []int64{1, 2} {
		if got := <-read; got != want {
			t.Errorf("event at %d, want %d", got, want)
		}
	}
}

// TestDispatchCutsOffAfterBudget: a watcher whose buffer stays full is cut off once the
// budget is spent, and its consumer terminated; the dispatch does not wait longer; the next
// full watcher, the budget spent, is cut off at once.
func TestDispatchCutsOffAfterBudget(t *testing.T) {
	s := newWatcherSet()
	var terminated atomic.Int32
	w := liveWatcher(s, 1, &terminated)
	s.dispatch(widgetEvent(1))
	start := time.Now()
	s.dispatch(widgetEvent(2))
	took := time.Since(start)
	if !w.ended || terminated.Load() != 1 {
		t.Fatalf("the full watcher: ended %v, terminated %d times; want cut off and terminated once", w.ended, terminated.Load())
	}
	if took < budgetMax/2 || took > budgetMax+time.Second {
		t.Errorf("dispatch waited %v for the full watcher; want about the budget, %v", took, budgetMax)
	}
	var terminated2 atomic.Int32
	w2 := liveWatcher(s, 1, &terminated2)
	s.dispatch(widgetEvent(3))
	start = time.Now()
	s.dispatch(widgetEvent(4))
	if took := time.Since(start); !w2.ended || took > budgetMax/2 {
		t.Errorf("the next full watcher with the budget spent: ended %v after %v; want cut off at once", w2.ended, took)
	}
}

// mustRev returns the resourceVersion of ev's widget as a number.
func mustRev(t *testing.T, ev watch.Event) int64 {
	r, err := revisionOf(ev.Object)
	if err != nil {
		t.Error(err)
	}
	return r
}
