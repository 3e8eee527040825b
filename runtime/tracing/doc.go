// Package tracing is the server's OpenTelemetry tracing, as kube-apiserver's APIServerTracing:
// kube's TracingConfiguration file (--tracing-config-file) read into a TracerProvider that
// exports over OTLP gRPC with parent-based sampling (ReadConfiguration, NewProvider), the
// spans the request path records (Start), the W3C trace context carried to the webhooks and
// backends the server calls (Transport), and the etcd client's gRPC spans
// (EtcdDialOptions).
//
// With tracing off no span is ever recording: Start then costs a context lookup and
// allocates nothing, Transport passes requests through, and the server installs neither the
// HTTP filter nor the gRPC handler.
package tracing
