package garbagecollector

import (
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// workerGoroutines counts the goroutines processing an item for runWorkers.
func workerGoroutines(t *testing.T) int {
	t.Helper()
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(g, "garbagecollector.runWorkers[") && strings.Contains(g, "].func") {
			n++
		}
	}
	return n
}

// TestRunWorkersAtMostNAndNoneIdle: runWorkers processes at most n items at once, the rest
// waiting in the queue as for n busy workers, holds no goroutine for a worker with nothing to
// do, and returns once the queue shuts down and the items under way are done.
func TestRunWorkersAtMostNAndNoneIdle(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[int]())
	const n, items = 3, 10
	var active, most, processed atomic.Int32
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		runWorkers(q, n, func(item int) {
			defer q.Done(item)
			a := active.Add(1)
			for m := most.Load(); a > m && !most.CompareAndSwap(m, a); m = most.Load() {
			}
			<-release
			active.Add(-1)
			processed.Add(1)
		})
	}()
	wait := func(what string, cond func() bool) {
		t.Helper()
		for range 500 {
			if cond() {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("timed out waiting for %s", what)
	}
	wait("no worker before any item", func() bool { return workerGoroutines(t) == 0 })
	for i := range items {
		q.Add(i)
	}
	wait("n items under way", func() bool { return active.Load() == n })
	if got := q.Len(); got != items-n {
		t.Errorf("%d items wait in the queue while %d are under way, want %d", got, n, items-n)
	}
	if got := workerGoroutines(t); got != n {
		t.Errorf("%d worker goroutines while %d items are under way, want %d", got, n, n)
	}
	close(release)
	wait("every item processed", func() bool { return processed.Load() == items })
	if got := most.Load(); got != n {
		t.Errorf("at most %d items were under way at once, want %d", got, n)
	}
	wait("no worker left when idle", func() bool { return workerGoroutines(t) == 0 })
	q.ShutDown()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("runWorkers did not return after the queue shut down")
	}
}
