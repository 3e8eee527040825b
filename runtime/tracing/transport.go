package tracing

import (
	"net/http"
	"sync/atomic"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/component-base/tracing"
)

// Transport wraps rt so that a request whose context holds a recording span gets a client
// span (otelhttp's, "HTTP POST") under it and carries its W3C trace context (traceparent,
// and baggage) to the server called, as kube-apiserver wraps its webhook and proxy clients
// with k8s.io/component-base/tracing.WrapperFor: admission and conversion webhooks,
// authorization webhooks and aggregated API servers then join the request's trace. The
// span's own TracerProvider records the client span, so no provider is threaded through.
// A request whose context holds a span context that is not recorded (not sampled) carries
// its traceparent only; others go to rt as they are.
func Transport(rt http.RoundTripper) http.RoundTripper {
	return &transport{plain: rt}
}

// transport is Transport's RoundTripper.
type transport struct {
	plain http.RoundTripper
	// traced is the otelhttp transport over plain of the last TracerProvider seen (a server
	// has one), built once: otelhttp's transport makes its instruments when built.
	traced atomic.Pointer[tracedTransport]
}

// tracedTransport is an otelhttp transport and the provider it records with.
type tracedTransport struct {
	tp trace.TracerProvider
	rt http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	span := trace.SpanFromContext(req.Context())
	if !span.IsRecording() {
		if !span.SpanContext().IsValid() {
			return t.plain.RoundTrip(req)
		}
		// A RoundTripper must not change the request it is given.
		req = req.Clone(req.Context())
		tracing.Propagators().Inject(req.Context(), propagation.HeaderCarrier(req.Header))
		return t.plain.RoundTrip(req)
	}
	tp := span.TracerProvider()
	tt := t.traced.Load()
	if tt == nil || tt.tp != tp {
		tt = &tracedTransport{tp: tp, rt: otelhttp.NewTransport(t.plain,
			otelhttp.WithPropagators(tracing.Propagators()), otelhttp.WithTracerProvider(tp))}
		t.traced.Store(tt)
	}
	return tt.rt.RoundTrip(req)
}

// CloseIdleConnections closes the wrapped transport's idle connections, so that
// http.Client.CloseIdleConnections still reaches them.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.plain.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
