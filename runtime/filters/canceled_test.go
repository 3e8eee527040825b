package filters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCanceledRequestsDropped: a request whose context was canceled before the filter (an
// HTTP/2 stream reset) does not reach the handler; a live one does, and so does one past its
// deadline (?timeout=1ns), which the deadline filter must answer 504.
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
	expired, cancelExpired := context.WithTimeout(context.Background(), 0)
	defer cancelExpired()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/api", nil).WithContext(expired))
	if served != 2 {
		t.Errorf("a request past its deadline was dropped; it must reach the deadline filter's 504")
	}
}
