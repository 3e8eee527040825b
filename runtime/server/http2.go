package server

import (
	"fmt"
	"net/http"
	"time"

	"golang.org/x/net/http2"
)

// DefaultHTTP2MaxStreamsPerConnection is how many concurrent streams a client may open on
// one HTTP/2 connection when Config.HTTP2MaxStreamsPerConnection is zero, as kube-apiserver's
// --http2-max-streams-per-connection=0 (k8s.io/apiserver's SecureServingInfo sets 100, the
// initial limit golang.org/x/net's clients assume, not x/net's server default of 250, so that
// a client can open at most 4x100 streams before Go's rapid-reset mitigation closes the
// connection; its help text still says "golang's default"). Aggregated servers built on
// k8s.io/apiserver's RecommendedOptions default the flag to 1000 instead (their client is a
// proxy multiplexing many requests); pass --http2-max-streams-per-connection=1000 for that.
const DefaultHTTP2MaxStreamsPerConnection = 100

// http2FrameSize is kube-apiserver's per-stream upload buffer and largest read frame (its
// SecureServingInfo's resourceBody99Percentile): at least 99% of serialized objects fit in
// one frame, and the buffer of a connection, this times its concurrent streams, stays small.
const http2FrameSize = 256 << 10

// maxHeaderBytes bounds a request's header, as kube-apiserver's secure server (1 MiB).
const maxHeaderBytes = 1 << 20

// idleTimeout closes idle connections, matching http.DefaultTransport's keep-alive, as
// kube-apiserver's secure server.
const idleTimeout = 90 * time.Second

// newHTTPServer returns the http.Server Serve runs: kube-apiserver's header, idle and HTTP/2
// limits, HTTP/2 served on TLS connections whose ALPN chose "h2" (the listener's tls.Config
// must offer it in NextProtos). The request deadlines of filters.WithRequestDeadline hold
// for HTTP/2 streams as for HTTP/1.1 connections: x/net/http2's response writer implements
// http.ResponseController's per-stream read and write deadlines.
func newHTTPServer(h http.Handler, maxStreams int) (*http.Server, error) {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	if maxStreams <= 0 {
		maxStreams = DefaultHTTP2MaxStreamsPerConnection
	}
	h2 := &http2.Server{
		IdleTimeout:                  idleTimeout,
		MaxConcurrentStreams:         uint32(maxStreams),
		MaxUploadBufferPerStream:     http2FrameSize,
		MaxUploadBufferPerConnection: http2FrameSize * int32(maxStreams),
		MaxReadFrameSize:             http2FrameSize,
	}
	if err := http2.ConfigureServer(srv, h2); err != nil {
		return nil, fmt.Errorf("cannot configure HTTP/2: %w", err)
	}
	return srv, nil
}
