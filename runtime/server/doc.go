// Package server is the API server of a generated binary: a go-restful container of API
// groups, the delegation chain behind it, health endpoints, discovery, OpenAPI, /version, and
// the run loop with graceful shutdown, as k8s.io/apiserver's GenericAPIServer and
// kube-apiserver's CreateServerChain.
//
// # Delegation
//
// Each Server has a delegate (a DelegationTarget). A request the Server does not serve goes
// to the delegate's UnprotectedHandler, and the chain ends in NewEmptyDelegate, which answers
// every request with a 404 metav1.Status. "Serves" is decided by a director, as
// kube-apiserver's APIServerHandler: a request goes to the go-restful container when a
// WebService's root path is the request path or a path-segment prefix of it ("/apis" only for
// "/apis" itself), then to the server's own non-REST paths (/healthz, /version, /openapi/v3,
// ...), and otherwise to the delegate.
//
// # Running
//
// New builds a Server; InstallAPIGroups adds groups; PrepareRun freezes it (health
// endpoints, OpenAPI documents); PreparedServer.Run or Serve listens until its context ends,
// then shuts down gracefully. Health checks and post-start hooks of every server in the chain
// are merged into the top one, which runs the hooks once it listens: /readyz fails until every
// hook has finished and again once shutdown begins.
//
// # Handler chain
//
// Handler wraps the director in the filters of filters.BuildHandlerChain, outermost first: panic
// recovery (a panic becomes a 500 metav1.Status), request logging at debug level, request info,
// then the request deadline (Config.RequestTimeout, or a shorter "timeout" query parameter)
// that bounds every request but watches: its context, the reading of its body and the writing
// of its response, so that a slow or non-reading client gives its in-flight slot back.
package server
