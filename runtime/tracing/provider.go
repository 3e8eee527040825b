package tracing

import (
	"context"

	"github.com/google/uuid"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/sdk/resource"
	"google.golang.org/grpc"
	"k8s.io/component-base/tracing"
	tracingapi "k8s.io/component-base/tracing/api/v1"
)

func init() {
	// otelhttp and otelgrpc make metric instruments the server does not export; with the
	// default global MeterProvider each is kept for a provider set later, which never comes
	// (open-telemetry/opentelemetry-go-contrib#5190). kube-apiserver's tracing options set
	// this no-op provider for the same reason.
	otel.SetMeterProvider(noop.NewMeterProvider())
}

// TracerProvider is an OpenTelemetry TracerProvider the server shuts down when it stops
// (which exports the spans still batched), as k8s.io/component-base/tracing's.
type TracerProvider = tracing.TracerProvider

// NewProvider returns the TracerProvider of cfg, as kube-apiserver's tracing options build
// it with k8s.io/component-base/tracing.NewProvider: spans are batched and exported over
// OTLP gRPC (insecure) to cfg.Endpoint (default localhost:4317); a span whose parent (the
// client's traceparent) is sampled is sampled, a root span with probability
// SamplingRatePerMillion/1e6 (never when unset). Spans carry the resource attributes
// service.name (serviceName; kube-apiserver's is "apiserver") and service.instance.id (a
// new random ID, as kube-apiserver's APIServerID). A nil cfg is a no-op provider. The
// exporter connects lazily: an unreachable collector is not an error here (its spans are
// dropped, as kube's).
func NewProvider(ctx context.Context, cfg *tracingapi.TracingConfiguration, serviceName string) (TracerProvider, error) {
	return tracing.NewProvider(ctx, cfg, nil, []resource.Option{resource.WithAttributes(
		attribute.String("service.name", serviceName),
		attribute.String("service.instance.id", serviceName+"-"+uuid.NewString()),
	)})
}

// EtcdDialOptions are the etcd client's gRPC dial options that record a client span per
// etcd call (etcdserverpb.KV/Range, KV/Txn, ...) under the request's span and send its trace
// context to etcd, as kube-apiserver's etcd3 storage factory passes otelgrpc's client
// handler with sent and received message events.
func EtcdDialOptions(tp TracerProvider) []grpc.DialOption {
	return []grpc.DialOption{grpc.WithStatsHandler(otelgrpc.NewClientHandler(
		otelgrpc.WithMessageEvents(otelgrpc.ReceivedEvents, otelgrpc.SentEvents),
		otelgrpc.WithPropagators(tracing.Propagators()),
		otelgrpc.WithTracerProvider(tp),
	))}
}
