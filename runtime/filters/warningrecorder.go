package filters

import (
	"net/http"

	"github.com/apigen-dev/apigen/runtime/warning"
)

// WithWarningRecorder puts a warning.Recorder writing to w's headers in every request's
// context, so that admission webhooks and policies can add warnings to the response, as
// k8s.io/apiserver's WithWarningRecorder.
func WithWarningRecorder(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := warning.WithRecorder(r.Context(), warning.NewRecorder(w.Header()))
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
