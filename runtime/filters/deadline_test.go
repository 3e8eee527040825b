package filters

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWithRequestDeadline checks the deadline a handler sees: the server's timeout, a shorter
// "timeout" parameter instead, none for watches, and 400 for an unparsable "timeout".
func TestWithRequestDeadline(t *testing.T) {
	const server = 30 * time.Second
	for _, tc := range []struct {
		name, target string
		want         time.Duration // 0: no deadline
	}{
		{"server timeout", "/apis/g/v1/widgets", server},
		{"shorter timeout parameter", "/apis/g/v1/widgets?timeout=5s", 5 * time.Second},
		{"longer timeout parameter", "/apis/g/v1/widgets?timeout=1h", server},
		{"zero timeout parameter", "/apis/g/v1/widgets?timeout=0s", server},
		{"watch parameter", "/apis/g/v1/widgets?watch=true&timeout=5s", 0},
		{"watch path", "/apis/g/v1/watch/widgets", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var deadline time.Time
			var hasDeadline bool
			h := WithRequestDeadline(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				deadline, hasDeadline = r.Context().Deadline()
			}), server)
			before := time.Now()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, tc.target, nil))
			after := time.Now()
			if tc.want == 0 {
				if hasDeadline {
					t.Errorf("deadline %v, want none", deadline)
				}
				return
			}
			if !hasDeadline || deadline.Before(before.Add(tc.want)) || deadline.After(after.Add(tc.want)) {
				t.Errorf("deadline %v (set: %v), want %v after the request", deadline.Sub(before), hasDeadline, tc.want)
			}
		})
	}

	t.Run("invalid timeout parameter", func(t *testing.T) {
		called := false
		h := WithRequestDeadline(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }), server)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/apis/g/v1/widgets?timeout=soon", nil))
		var st metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
			t.Fatalf("body %q: %v", rec.Body, err)
		}
		if called || rec.Code != http.StatusBadRequest || st.Kind != "Status" || st.Reason != metav1.StatusReasonBadRequest {
			t.Errorf("handler called %v; response %d %+v, want 400 BadRequest Status", called, rec.Code, st)
		}
	})
}
