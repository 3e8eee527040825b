package server

import (
	"log/slog"
	"net/http"
)

// BuildHandlerChain wraps apiHandler in the server's filters. The order is spelled out here
// and nowhere else; the first filter listed runs first (outermost), as k8s.io/apiserver's
// DefaultBuildHandlerChain.
func BuildHandlerChain(apiHandler http.Handler, log *slog.Logger) http.Handler {
	h := apiHandler
	h = WithRequestLogging(h, log)
	h = WithPanicRecovery(h, log)
	return h
}
