package metrics

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/request"
)

// Component is the "component" label of request metrics, as kube-apiserver's.
const Component = "apiserver"

// latencyBuckets are kube-apiserver's buckets for request and etcd latencies, in seconds.
var latencyBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// Metrics are one server's metrics in their own registry. Safe for concurrent use.
type Metrics struct {
	// Registry holds every metric below and the Go and process collectors.
	Registry *prometheus.Registry

	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	etcd     *prometheus.HistogramVec
	watchers *prometheus.GaugeVec
	objects  *prometheus.GaugeVec
	// counts are the last counts of SetStorageObjects, by resource, for StorageObjects.
	counts sync.Map
	// controllers are the in-process controllers' series (controllers.go).
	controllers controllerMetrics
	// flowcontrol are API Priority and Fairness's series (flowcontrol.go).
	flowcontrol flowcontrolOnce
}

// New returns metrics registered in a new registry.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			Buckets: latencyBuckets,
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}),
		etcd: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "etcd_request_duration_seconds",
			Help:    "Etcd request latency in seconds for each operation and object type.",
			Buckets: latencyBuckets,
		}, []string{"operation", "type"}),
		watchers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_registered_watchers",
			Help: "Number of currently registered watchers for a given resources",
		}, []string{"group", "version", "kind"}),
		objects: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_storage_objects",
			Help: "Number of stored objects at the time of last check split by kind.",
		}, []string{"resource"}),
	}
	m.Registry.MustRegister(m.requests, m.latency, m.etcd, m.watchers, m.objects,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format (GET /metrics).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
}

// ObserveEtcd records one etcd request: operation ("get", "list", "create", "update",
// "delete", "watch") on objects of type typ (e.g. "databases.db.example.com").
func (m *Metrics) ObserveEtcd(operation, typ string, d time.Duration) {
	m.etcd.WithLabelValues(operation, typ).Observe(d.Seconds())
}

// AddWatchers adds delta (+1 when a watch starts, -1 when it ends) to the watchers of gvk.
func (m *Metrics) AddWatchers(gvk schema.GroupVersionKind, delta int) {
	m.watchers.WithLabelValues(gvk.Group, gvk.Version, gvk.Kind).Add(float64(delta))
}

// SetStorageObjects records that resource (e.g. "databases.db.example.com") has n objects.
func (m *Metrics) SetStorageObjects(resource string, n int64) {
	m.objects.WithLabelValues(resource).Set(float64(n))
	m.counts.Store(resource, n)
}

// StorageObjects returns the last count SetStorageObjects recorded for resource, and
// whether there is one (API Priority and Fairness sizes lists by it, as kube's).
func (m *Metrics) StorageObjects(resource string) (int64, bool) {
	n, ok := m.counts.Load(resource)
	if !ok {
		return 0, false
	}
	return n.(int64), true
}

// WithMetrics counts every resource request in apiserver_request_total and times it in
// apiserver_request_duration_seconds (watches are counted, not timed), labelled as
// kube-apiserver labels them: verb GET, LIST, WATCH, POST, PUT, PATCH, APPLY or DELETE;
// scope resource, namespace or cluster; code the HTTP status written. The non-resource
// requests of nonResourceMetrics are counted and timed too, as kube-apiserver instruments its
// health and discovery handlers: the request's method as verb, the path as subresource, no
// group, version, resource or scope.
func (m *Metrics) WithMetrics(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, err := request.InfoFor(r)
		if err != nil {
			h.ServeHTTP(w, r)
			return
		}
		if !info.IsResourceRequest {
			m.serveNonResource(h, w, r)
			return
		}
		start := time.Now()
		rec := &codeRecorder{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(rec, r)
		verb, scope, dryRun := reportedVerb(r, info), scopeOf(info), dryRunLabel(r)
		m.requests.WithLabelValues(verb, dryRun, info.APIGroup, info.APIVersion, info.Resource, info.Subresource,
			scope, Component, strconv.Itoa(rec.code)).Inc()
		if verb != "WATCH" {
			m.latency.WithLabelValues(verb, dryRun, info.APIGroup, info.APIVersion, info.Resource, info.Subresource,
				scope, Component).Observe(time.Since(start).Seconds())
		}
	})
}

// nonResourceMetrics maps the non-resource paths whose requests are counted to their
// subresource label (the path a family of paths is counted under) and component label:
// the health checks as kube-apiserver's healthz handlers count them (component ""), the
// discovery documents as its discovery handlers ("apiserver"), /version and the OpenAPI
// documents as the health checks.
var nonResourceMetrics = map[string]struct{ path, component string }{
	"/healthz": {"/healthz", ""}, "/livez": {"/livez", ""}, "/readyz": {"/readyz", ""},
	"/version": {"/version", ""}, "/openapi/v2": {"/openapi/v2", ""}, "/openapi/v3": {"/openapi/v3", ""},
	"/api": {"/api", Component}, "/apis": {"/apis", Component},
}

// nonResourceLabels returns the subresource and component labels of a non-resource path
// nonResourceMetrics counts: the path itself, or the family an /openapi/v3/ document or an
// /apis/<group>[/<version>] or /api/<version> discovery document belongs to.
func nonResourceLabels(path string) (subresource, component string, ok bool) {
	path = strings.TrimSuffix(path, "/")
	if l, ok := nonResourceMetrics[path]; ok {
		return l.path, l.component, true
	}
	for _, family := range []string{"/openapi/v3", "/apis", "/api"} {
		if strings.HasPrefix(path, family+"/") {
			l := nonResourceMetrics[family]
			return l.path, l.component, true
		}
	}
	return "", "", false
}

// serveNonResource serves a non-resource request with h, counting and timing it when
// nonResourceLabels knows its path.
func (m *Metrics) serveNonResource(h http.Handler, w http.ResponseWriter, r *http.Request) {
	sub, component, ok := nonResourceLabels(r.URL.Path)
	if !ok {
		h.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	rec := &codeRecorder{ResponseWriter: w, code: http.StatusOK}
	h.ServeHTTP(rec, r)
	verb := strings.ToUpper(r.Method)
	m.requests.WithLabelValues(verb, "", "", "", "", sub, "", component, strconv.Itoa(rec.code)).Inc()
	m.latency.WithLabelValues(verb, "", "", "", "", sub, "", component).Observe(time.Since(start).Seconds())
}

// reportedVerb is kube-apiserver's metrics verb (CanonicalVerb, then cleanVerb).
func reportedVerb(r *http.Request, info *request.RequestInfo) string {
	switch info.Verb {
	case "list":
		return "LIST"
	case "watch":
		return "WATCH"
	case "get":
		return "GET"
	case "create":
		return "POST"
	case "update":
		return "PUT"
	case "patch":
		if r.Header.Get("Content-Type") == "application/apply-patch+yaml" {
			return "APPLY"
		}
		return "PATCH"
	case "delete", "deletecollection":
		return "DELETE"
	}
	return strings.ToUpper(r.Method)
}

// scopeOf is kube-apiserver's CleanScope.
func scopeOf(info *request.RequestInfo) string {
	switch {
	case info.Name != "" || info.Verb == "create":
		return "resource"
	case info.Namespace != "":
		return "namespace"
	default:
		return "cluster"
	}
}

// codeRecorder remembers the status code written through it; it forwards Flush so that
// watches keep streaming, and Unwrap for http.ResponseController.
type codeRecorder struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
}

func (c *codeRecorder) WriteHeader(code int) {
	if !c.wroteHeader {
		c.code, c.wroteHeader = code, true
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *codeRecorder) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *codeRecorder) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// dryRunLabel is the dry_run label of r: its dryRun query values joined with commas, as
// kube-apiserver's; "" without a query, at no cost.
func dryRunLabel(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return strings.Join(r.URL.Query()["dryRun"], ",")
}
