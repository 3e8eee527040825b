package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestLongRunningStopHoldsNoGoroutine: withLongRunningStop cancels every long-running
// request when stopping ends, and while they run it holds no goroutine per request (only
// the requests' own). Not parallel: it counts the process's goroutines.
func TestLongRunningStopHoldsNoGoroutine(t *testing.T) {
	stopping, stop := context.WithCancel(context.Background())
	defer stop()
	const n = 300
	var running, ended sync.WaitGroup
	running.Add(n)
	ended.Add(n)
	h := withLongRunningStop(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		running.Done()
		<-r.Context().Done()
	}), stopping)
	base := runtime.NumGoroutine()
	for range n {
		go func() {
			defer ended.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/v1/pods?watch=true", nil))
		}()
	}
	running.Wait()
	if extra := runtime.NumGoroutine() - base - n; extra >= n/3 {
		t.Errorf("%d goroutines besides the %d requests' own; want fewer than %d", extra, n, n/3)
	}
	stop()
	done := make(chan struct{})
	go func() { ended.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("long-running requests still running 10s after stopping ended")
	}
}
