package etcd3

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/apigen-dev/apigen/runtime/tracing"
)

// startSpan starts the span name ("Create etcd3", "GuaranteedUpdate etcd3", ...) of a
// storage call on key of a traced request, with the key and the resource as attributes, as
// kube-apiserver's etcd3 store records its calls; the etcd client's gRPC spans (tracing's
// dial options) nest under it. An untraced request gets a nil span and builds nothing.
func (s *store) startSpan(ctx context.Context, name, key string) (context.Context, *tracing.Span) {
	ctx, span := tracing.Start(ctx, name)
	if span.IsRecording() {
		span.SetAttributes(attribute.String("key", key), attribute.String("resource", s.gr.String()))
	}
	return ctx, span
}
