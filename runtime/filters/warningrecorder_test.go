package filters

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apigen-dev/apigen/runtime/warning"
)

func TestWithWarningRecorder(t *testing.T) {
	h := WithWarningRecorder(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		warning.AddWarning(r.Context(), "deprecated field spec.size")
		w.WriteHeader(http.StatusCreated)
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/apis/db.example.com/v1/databases", nil))
	if got := rec.Header().Values("Warning"); len(got) != 1 || got[0] != `299 - "deprecated field spec.size"` {
		t.Errorf("Warning headers = %q", got)
	}
}
