package filters

import (
	"log/slog"
	"net/http"
	"time"
)

// BuildHandlerChain wraps apiHandler in the server's filters. The order is spelled out here
// and nowhere else; the last filter applied runs first (outermost), as k8s.io/apiserver's
// DefaultBuildHandlerChain. requestTimeout bounds each non-long-running request (see
// WithRequestDeadline; non-positive means DefaultRequestTimeout).
func BuildHandlerChain(apiHandler http.Handler, log *slog.Logger, requestTimeout time.Duration) http.Handler {
	h := apiHandler
	h = WithRequestDeadline(h, requestTimeout)
	h = WithRequestLogging(h, log)
	h = WithPanicRecovery(h, log)
	return h
}
