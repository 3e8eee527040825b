package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// instrumentationScope names the tracer of the spans Start records, as
// k8s.io/component-base/tracing's.
const instrumentationScope = "k8s.io/component-base/tracing"

// Span is one step of a request's trace (a verb, admission, a storage call). A nil *Span,
// what Start returns when the request is not traced, does nothing.
type Span struct {
	span trace.Span
}

// Start starts a child span named name of ctx's span, from the same TracerProvider, and
// returns a context holding it, as k8s.io/component-base/tracing.Start. When ctx's span is
// not recording (tracing off, or the request not sampled) it returns ctx and a nil *Span:
// no allocation. Callers add attributes through SetAttributes after IsRecording, so that
// an untraced request builds none.
func Start(ctx context.Context, name string) (context.Context, *Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, nil
	}
	ctx, span := parent.TracerProvider().Tracer(instrumentationScope).Start(ctx, name)
	return ctx, &Span{span: span}
}

// IsRecording reports whether ctx holds a recording span: whether Start would start one.
func IsRecording(ctx context.Context) bool {
	return trace.SpanFromContext(ctx).IsRecording()
}

// InTrace reports whether ctx holds a span context, recorded or not: whether Transport
// would send a traceparent.
func InTrace(ctx context.Context) bool {
	return trace.SpanContextFromContext(ctx).IsValid()
}

// AddEvent records the point in time name on ctx's span when it is recording, as kube's
// handlers record their steps ("About to store object in database", ...) on their verb's
// span; it does nothing otherwise.
func AddEvent(ctx context.Context, name string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent(name)
	}
}

// IsRecording reports whether s records what is added to it (s is not nil).
func (s *Span) IsRecording() bool { return s != nil }

// SetAttributes sets attributes on s.
func (s *Span) SetAttributes(kv ...attribute.KeyValue) {
	if s != nil {
		s.span.SetAttributes(kv...)
	}
}

// AddEvent records a point in time named name, as kube's spans record their steps ("About
// to store object in database", "Write to database call succeeded", ...).
func (s *Span) AddEvent(name string) {
	if s != nil {
		s.span.AddEvent(name)
	}
}

// End ends s, recording err, when not nil, as the span's error status.
func (s *Span) End(err error) {
	if s == nil {
		return
	}
	if err != nil {
		s.span.RecordError(err)
		s.span.SetStatus(codes.Error, err.Error())
	}
	s.span.End()
}
