package server

import (
	"context"
	"net/http"

	"github.com/apigen-dev/apigen/runtime/filters"
)

// withLongRunningStop cancels the context of long-running requests (watches: a "watch" query
// parameter of "true" or "1", or a path under "/watch/") when stopping ends, so that
// shutdown need not wait for them, as kube-apiserver closes watches on shutdown. Other
// requests keep their context and drain normally. The cancellation is registered on
// stopping (context.AfterFunc), not waited for by a goroutine of each request: a server
// holding 10,000 watches keeps no 10,000 goroutines and stacks for it.
func withLongRunningStop(h http.Handler, stopping context.Context) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !filters.IsLongRunning(r) {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(stopping, cancel)()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
