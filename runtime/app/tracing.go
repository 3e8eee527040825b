package app

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"google.golang.org/grpc"

	"github.com/apigen-dev/apigen/runtime/tracing"
)

// TracingOptions turn on OpenTelemetry tracing, as kube-apiserver's (APIServerTracing).
type TracingOptions struct {
	// TracingConfigFile is the apiserver.config.k8s.io/v1 (or v1beta1, v1alpha1)
	// TracingConfiguration file, as kube-apiserver's --tracing-config-file: the OTLP gRPC
	// collector (endpoint, default localhost:4317) and samplingRatePerMillion. Empty:
	// tracing is off.
	TracingConfigFile string
}

// AddFlags registers --tracing-config-file on fs.
func (o *TracingOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.TracingConfigFile, "tracing-config-file", o.TracingConfigFile, "file with apiserver tracing configuration (apiserver.config.k8s.io/v1 TracingConfiguration: endpoint of an OTLP gRPC collector, samplingRatePerMillion), as kube-apiserver's; empty turns tracing off")
}

// validate reads and validates the file, as kube-apiserver does at start-up.
func (o *TracingOptions) validate() []string {
	if o.TracingConfigFile == "" {
		return nil
	}
	if _, err := tracing.ReadConfiguration(o.TracingConfigFile); err != nil {
		return []string{fmt.Sprintf("--tracing-config-file: %v", err)}
	}
	return nil
}

// tracerShutdownTimeout bounds how long a stopping server spends exporting the spans it
// still holds.
const tracerShutdownTimeout = 5 * time.Second

// serverTracing is the server's tracing: nil when --tracing-config-file is empty.
type serverTracing struct {
	provider tracing.TracerProvider
}

// startTracing builds the TracerProvider of --tracing-config-file, its spans' service name
// being the server's name (kube-apiserver's is "apiserver"); nil when tracing is off.
func startTracing(ctx context.Context, name string, o *TracingOptions) (*serverTracing, error) {
	if o.TracingConfigFile == "" {
		return nil, nil
	}
	cfg, err := tracing.ReadConfiguration(o.TracingConfigFile)
	if err != nil {
		return nil, fmt.Errorf("failed to read tracing config: %w", err)
	}
	tp, err := tracing.NewProvider(ctx, cfg, name)
	if err != nil {
		return nil, fmt.Errorf("cannot start tracing: %w", err)
	}
	return &serverTracing{provider: tp}, nil
}

// etcdDialOptions are the etcd client's gRPC dial options: otelgrpc's client spans when
// tracing is on, none otherwise.
func (t *serverTracing) etcdDialOptions() []grpc.DialOption {
	if t == nil {
		return nil
	}
	return tracing.EtcdDialOptions(t.provider)
}

// Close exports the spans not yet exported and stops the exporter, within
// tracerShutdownTimeout.
func (t *serverTracing) Close() error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), tracerShutdownTimeout)
	defer cancel()
	if err := t.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("cannot flush traces: %w", err)
	}
	return nil
}
