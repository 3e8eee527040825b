// Package filters holds the HTTP filters every request passes before it reaches the
// server's routes, one `WithX(h http.Handler, ...) http.Handler` per file, as
// k8s.io/apiserver's pkg/server/filters. BuildHandlerChain spells out their order; nothing
// else decides it.
package filters
