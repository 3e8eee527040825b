// Package metrics exposes a server's metrics at /metrics in the Prometheus text format
// (github.com/prometheus/client_golang), under kube-apiserver's metric names and labels:
// apiserver_request_total, apiserver_request_duration_seconds, etcd_request_duration_seconds,
// apiserver_registered_watchers and apiserver_storage_objects, plus the Go and process
// collectors.
//
// Status: the metrics, the request instrumentation filter and the handler are built and
// tested; the server serving /metrics, and storage reporting etcd latency, watchers and
// object counts, are wired with the rest of issue 7.
package metrics
