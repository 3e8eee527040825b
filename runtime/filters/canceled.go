package filters

import (
	"context"
	"errors"
	"net/http"
)

// WithCanceledRequestsDropped serves nothing for a request whose context has already ended
// when it reaches this filter: its client went away before the server got to it, and no
// response can reach the client. Over HTTP/2 a stream reset by the client (RST_STREAM)
// cancels its request's context, so a flood of HEADERS immediately followed by RST_STREAM
// (the "rapid reset" attack, CVE-2023-44487) otherwise makes the server authenticate,
// authorize and list from storage for every reset stream, about three times what a bare
// Go HTTP/2 server spends on one (BenchmarkRapidReset in runtime/app). Go's HTTP/2 server
// already skips a reset stream whose handler has not started; this filter drops the ones
// whose handler started an instant before the reset was read. kube-apiserver has no such
// filter: its chain is as costly per stream, and it relies on Go's mitigation alone.
//
// Nothing is written and nothing is logged, audited or counted for such a request (the
// filters that would are inside this one); the connection's server sees the handler return.
// An HTTP/1.1 request's context ends only when its connection has closed, so the same holds
// for a client that hung up before its request was served. Only a canceled context is
// dropped: one past its deadline (?timeout=1ns, --request-timeout) goes on, so that the
// deadline filter answers 504 Timeout as kube-apiserver does.
func WithCanceledRequestsDropped(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if errors.Is(r.Context().Err(), context.Canceled) {
			return
		}
		h.ServeHTTP(w, r)
	})
}
