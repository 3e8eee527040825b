package filters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCanceledRequestsDropped: a request whose context ended before the filter (an HTTP/2
// stream reset) does not reach the handler; a live one does.
func TestCanceledRequestsDropped(t *testing.T) {
	t.Parallel()
	served := 0
	h := WithCanceledRequestsDropped(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api", nil).WithContext(ctx))
	if served != 0 {
		t.Errorf("a canceled request was served")
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api", nil))
	if served != 1 {
		t.Errorf("a live request was not served")
	}
}
