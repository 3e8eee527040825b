package structural

import (
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentUse builds one Structural and validates, prunes and defaults from many goroutines at once, as a
// server does for every request (run with -race).
func TestConcurrentUse(t *testing.T) {
	s := mustNew(t, celSchema)
	var wg sync.WaitGroup
	failures := make(chan string, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obj := map[string]any{"spec": map[string]any{"replicas": int64(1), "minReplicas": int64(i % 3), "extra": "x"}}
			if pruned := s.Prune(obj); len(pruned) != 1 {
				failures <- fmt.Sprintf("pruned %q, want [spec.extra]", pruned)
			}
			s.Default(obj)
			errs := s.Validate(ctx, obj, obj)
			if (len(errs) == 1) != (i%3 == 2) {
				failures <- render(errs)
			}
		}()
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Errorf("unexpected result: %q", f)
	}
}
