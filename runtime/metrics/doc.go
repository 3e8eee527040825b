// Package metrics exposes a server's metrics at /metrics in the Prometheus text format
// (github.com/prometheus/client_golang), under kube-apiserver's metric names and labels:
// apiserver_request_total, apiserver_request_duration_seconds, etcd_request_duration_seconds,
// apiserver_registered_watchers and apiserver_storage_objects, plus the Go and process
// collectors.
//
// The server serves /metrics and its handler chain counts and times every resource request
// (runtime/server, runtime/filters); etcd3 storage reports its etcd requests, and runtime/app
// counts stored objects every minute; etcd3 watches count themselves in
// apiserver_registered_watchers (version label empty: storage watches the internal version).
//
// Controllers running in the server add kube-controller-manager's series the first time they
// ask for them: client-go workqueue metrics (workqueue_depth, workqueue_adds_total, ...,
// labelled with the queue's name; WorkqueueMetricsProvider) and the garbage collector's
// garbagecollector_controller_* series (GarbageCollector).
package metrics
