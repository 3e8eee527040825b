package etcd3_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// TestWatchStopLeavesNoGoroutines starts and stops many watches and checks that the
// goroutine count returns to where it was.
func TestWatchStopLeavesNoGoroutines(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	// Warm up: the client's first watch starts long-lived stream goroutines.
	warm, err := s.Watch(ctx, "/", storage.ListOptions{Recursive: true, ResourceVersion: "1"})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer warm.Stop()
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	for range 50 {
		w, err := s.Watch(ctx, "/", storage.ListOptions{Recursive: true})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		w.Stop()
		if _, ok := <-w.ResultChan(); ok {
			t.Fatalf("result channel open after Stop")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		after := runtime.NumGoroutine()
		if after <= before+2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines before 50 watches, %d after stopping them all", before, after)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
