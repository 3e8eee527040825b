package filters

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
)

// TestWithRequestStackServesEveryRequest checks that WithRequestStack hands every request,
// write, read or watch, to the next handler as it came.
func TestWithRequestStackServesEveryRequest(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, "WATCH"} {
		var got *http.Request
		h := WithRequestStack(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = r
			w.WriteHeader(http.StatusTeapot)
		}))
		req := httptest.NewRequest(method, "/apis/db.example.com/v1/namespaces/ns/databases/d", nil)
		if method == "WATCH" {
			req = httptest.NewRequest(http.MethodGet, "/apis/db.example.com/v1/namespaces/ns/databases?watch=true", nil)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got != req || rec.Code != http.StatusTeapot {
			t.Errorf("%s: handler saw %v, answered %d", method, got, rec.Code)
		}
	}
}

// BenchmarkGrowStack measures growing a new goroutine's stack for a write (GrowStack), as
// WithRequestStack does first thing.
func BenchmarkGrowStack(b *testing.B) {
	done := make(chan struct{})
	for b.Loop() {
		go func() {
			GrowStack()
			done <- struct{}{}
		}()
		<-done
	}
}

// TestGrowStackGrows checks that GrowStack grows the calling goroutine's stack by at least
// writeStackBytes: goroutines that call it and then wait hold that much more stack than
// goroutines that only wait.
func TestGrowStackGrows(t *testing.T) {
	const n = 200
	held := func(grow bool) uint64 {
		release := make(chan struct{})
		var started sync.WaitGroup
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			started.Add(1)
			go func() {
				if grow {
					GrowStack()
				}
				started.Done()
				<-release
			}()
		}
		started.Wait()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		close(release)
		return after.StackInuse - min(after.StackInuse, before.StackInuse)
	}
	plain, grown := held(false), held(true)
	if grown < plain+n*writeStackBytes {
		t.Errorf("%d goroutines hold %d bytes of stack after GrowStack, %d without: want at least %d more",
			n, grown, plain, n*writeStackBytes)
	}
}
