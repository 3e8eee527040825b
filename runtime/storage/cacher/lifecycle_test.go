package cacher_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestLiveWatchersHoldNoGoroutine: once a watcher has sent its initial events it holds no
// goroutine of its own, and it still gets every event and ends in each of the three ways a
// watch ends: Stop, its context, and the cache closing. Not parallel: it counts the
// process's goroutines.
func TestLiveWatchersHoldNoGoroutine(t *testing.T) {
	client, _ := etcdtest.Run(t)
	c := newCacher(t, client, newPrefix(), nil, cacher.Config{})
	opts := storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatInt(c.Revision(), 10)}
	const n = 300
	base := runtime.NumGoroutine()
	watchers := make([]watch.Interface, n)
	cancels := make([]context.CancelFunc, n)
	for i := range watchers {
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		w, err := c.Watch(ctx, "/ns/", opts)
		if err != nil {
			t.Fatal(err)
		}
		watchers[i] = w
	}
	t.Cleanup(func() {
		for i, w := range watchers {
			cancels[i]()
			w.Stop()
		}
	})
	// Each watcher's goroutine returns once it is live; allow other goroutines to come and
	// go, but not one per watcher.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine()-base >= n/3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines more with %d live watchers; want fewer than %d", runtime.NumGoroutine()-base, n, n/3)
		}
		time.Sleep(10 * time.Millisecond)
	}

	wr := &writer{t: t, s: c}
	wr.write()
	for i, w := range watchers {
		if got := collect(t, w, 1); got[0] != wr.events[0] {
			t.Fatalf("watcher %d got %q; want %q", i, got[0], wr.events[0])
		}
	}

	// A third end by Stop, a third by their context; the cache's end closes the rest.
	for i := range n / 3 {
		watchers[i].Stop()
		expectClosed(t, watchers[i], "after Stop")
	}
	for i := n / 3; i < 2*n/3; i++ {
		cancels[i]()
		expectClosed(t, watchers[i], "after its context ended")
	}
	waitFor(t, "the ended watchers to be forgotten", func() bool { return c.Watchers() == n-2*n/3 })
	c.Stop()
	for _, w := range watchers[2*n/3:] {
		expectClosed(t, w, "after the cache stopped")
	}
	waitFor(t, "every watcher to be forgotten", func() bool { return c.Watchers() == 0 })
}

// expectClosed fails unless w's result channel closes within 10s (events before it are
// drained).
func expectClosed(t *testing.T, w watch.Interface, when string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-timeout:
			t.Fatalf("result channel still open %s", when)
		}
	}
}
