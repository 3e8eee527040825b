package filters

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// Default in-flight limits, as kube-apiserver's --max-requests-inflight and
// --max-mutating-requests-inflight.
const (
	DefaultMaxRequestsInFlight         = 400
	DefaultMaxMutatingRequestsInFlight = 200
)

// WithMaxInFlightLimit bounds how many requests are served at once, as k8s.io/apiserver's
// filters.WithMaxInFlightLimit: at most nonMutating reads (GET, HEAD, OPTIONS) and at most
// mutating writes (POST, PUT, PATCH, DELETE); long-running requests (watches) are not
// counted. A request over its limit is not queued: it gets 429 TooManyRequests with
// Retry-After: 1, which client-go retries. A limit <= 0 means no limit.
func WithMaxInFlightLimit(h http.Handler, nonMutating, mutating int) http.Handler {
	reads, writes := semaphore(nonMutating), semaphore(mutating)
	if reads == nil && writes == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if IsLongRunning(r) {
			h.ServeHTTP(w, r)
			return
		}
		sem := reads
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			sem = writes
		}
		if sem == nil {
			h.ServeHTTP(w, r)
			return
		}
		select {
		case sem <- struct{}{}:
			defer func() { <-sem }()
			h.ServeHTTP(w, r)
		default:
			responsewriters.WriteError(w, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
		}
	})
}

// semaphore returns a channel holding up to n tokens, or nil for n <= 0.
func semaphore(n int) chan struct{} {
	if n <= 0 {
		return nil
	}
	return make(chan struct{}, n)
}
