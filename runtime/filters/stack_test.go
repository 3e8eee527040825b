package filters

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestWithWriteStackServesEveryRequest checks that WithWriteStack hands every request, write
// or not, to the next handler as it came.
func TestWithWriteStackServesEveryRequest(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		var got *http.Request
		h := WithWriteStack(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got = r
			w.WriteHeader(http.StatusTeapot)
		}))
		req := httptest.NewRequest(method, "/apis/db.example.com/v1/namespaces/ns/databases/d", nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got != req || rec.Code != http.StatusTeapot {
			t.Errorf("%s: handler saw %v, answered %d", method, got, rec.Code)
		}
	}
}

// BenchmarkGrowStack measures growing a new goroutine's stack for a write (GrowStack), as
// WithWriteStack does first thing.
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
