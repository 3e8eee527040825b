package filters

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// WithPanicRecovery answers a request whose handler panics with a 500 metav1.Status (reason
// InternalError) and logs the panic with its stack at error level. http.ErrAbortHandler is
// re-panicked, as net/http expects, so the connection is aborted.
func WithPanicRecovery(h http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			log.Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			responsewriters.WriteStatus(w, &apierrors.NewInternalError(fmt.Errorf("handler panicked: %v", v)).ErrStatus)
		}()
		h.ServeHTTP(w, r)
	})
}
