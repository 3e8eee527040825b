package server

import (
	"context"
	"net/http"

	"github.com/apigen-dev/apigen/runtime/filters"
)

// withLongRunningStop cancels the context of long-running requests (watches: a "watch" query
// parameter of "true" or "1", or a path under "/watch/") when stop is closed, so that
// shutdown need not wait for them, as kube-apiserver closes watches on shutdown. Other
// requests keep their context and drain normally.
func withLongRunningStop(h http.Handler, stop <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !filters.IsLongRunning(r) {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
