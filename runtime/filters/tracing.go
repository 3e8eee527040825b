package filters

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/component-base/tracing"

	"github.com/apigen-dev/apigen/runtime/request"
)

// WithTracing records a server span per request with tp, as k8s.io/apiserver's WithTracing
// filter: otelhttp's handler, accepting the client's W3C trace context (traceparent) as the
// span's parent, the span named by the request as kube names it ("POST
// /api/v1/namespaces/{:namespace}/configmaps", the HTTP method alone for a non-resource
// request), with the http.target attribute. A client in system:masters or
// system:monitoring (kube's privileged groups) continues its own trace; any other client's
// trace context is recorded as a link of a new trace (otelhttp's public endpoint), so that
// an outside client cannot join or force the sampling of the server's traces; with no user
// (a server without authentication, --plain-http on loopback, where every client is
// trusted) the client's trace is continued. tp nil means
// tracing is off: h is returned as it is (no cost per request). It sits inside
// authentication, as kube's, so the span knows the user.
func WithTracing(h http.Handler, tp trace.TracerProvider) http.Handler {
	if tp == nil {
		return h
	}
	wrapped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		span := trace.SpanFromContext(r.Context())
		if r.URL != nil {
			// otelhttp leaves it out (open-telemetry/opentelemetry-go-contrib#3743); kube adds it.
			span.SetAttributes(attribute.String("http.target", r.URL.RequestURI()))
		}
		h.ServeHTTP(w, r)
	})
	return otelhttp.NewHandler(wrapped, "KubernetesAPI",
		otelhttp.WithPropagators(tracing.Propagators()),
		otelhttp.WithPublicEndpointFn(notSystemPrivileged),
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			info, ok := request.RequestInfoFrom(r.Context())
			if !ok || !info.IsResourceRequest {
				return r.Method
			}
			return spanName(info, r.Method)
		}))
}

// spanName is kube's name of a resource request's span: the method and the path with the
// namespace and name as placeholders.
func spanName(info *request.RequestInfo, method string) string {
	name := method + " /" + info.APIPrefix
	if info.APIGroup != "" {
		name += "/" + info.APIGroup
	}
	name += "/" + info.APIVersion
	if info.Namespace != "" {
		name += "/namespaces/{:namespace}"
	}
	name += "/" + info.Resource
	if info.Name != "" {
		name += "/{:name}"
	}
	if info.Subresource != "" {
		name += "/" + info.Subresource
	}
	return name
}

// notSystemPrivileged reports whether r's user is in neither system:masters nor
// system:monitoring: kube treats such a request as coming from a public endpoint. A request
// without a user (no authentication) is not.
func notSystemPrivileged(r *http.Request) bool {
	if u, ok := request.UserFrom(r.Context()); ok {
		return !u.InGroup("system:masters") && !u.InGroup("system:monitoring")
	}
	return false
}
