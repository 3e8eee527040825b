package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// controllerMetrics are the series of the controllers a server runs in process, registered
// the first time a controller asks for them (a server whose garbage collector is off has no
// garbagecollector_* series, as kube-controller-manager without it).
type controllerMetrics struct {
	workqueueOnce sync.Once
	workqueue     *workqueueProvider
	gcOnce        sync.Once
	gc            *GarbageCollectorMetrics
}

// WorkqueueMetricsProvider returns the provider of client-go workqueue metrics, under
// component-base's names (workqueue_depth, workqueue_adds_total,
// workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
// workqueue_unfinished_work_seconds, workqueue_longest_running_processor_seconds,
// workqueue_retries_total), labelled with the queue's name, as kube-controller-manager
// exposes its queues ("garbage_collector_attempt_to_delete"). Give it as
// workqueue.TypedRateLimitingQueueConfig.MetricsProvider; queues of the same name share series.
func (m *Metrics) WorkqueueMetricsProvider() workqueue.MetricsProvider {
	m.controllers.workqueueOnce.Do(func() {
		m.controllers.workqueue = newWorkqueueProvider()
		m.Registry.MustRegister(m.controllers.workqueue.collectors()...)
	})
	return m.controllers.workqueue
}

// workqueueProvider implements workqueue.MetricsProvider over labelled vectors.
type workqueueProvider struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, work              *prometheus.HistogramVec
}

// workqueueBuckets are component-base's workqueue buckets: 10ns to 10s (seconds).
var workqueueBuckets = prometheus.ExponentialBuckets(10e-9, 10, 10)

func newWorkqueueProvider() *workqueueProvider {
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: name, Help: help}, []string{"name"})
	}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: name, Help: help}, []string{"name"})
	}
	histogram := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: name, Help: help,
			Buckets: workqueueBuckets}, []string{"name"})
	}
	return &workqueueProvider{
		depth: gauge("depth", "Current depth of workqueue"),
		unfinished: gauge("unfinished_work_seconds", "How many seconds of work has done that is in progress and hasn't "+
			"been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck "+
			"threads by observing the rate at which this increases."),
		longest: gauge("longest_running_processor_seconds", "How many seconds has the longest running processor for workqueue been running."),
		adds:    counter("adds_total", "Total number of adds handled by workqueue"),
		retries: counter("retries_total", "Total number of retries handled by workqueue"),
		latency: histogram("queue_duration_seconds", "How long in seconds an item stays in workqueue before being requested."),
		work:    histogram("work_duration_seconds", "How long in seconds processing an item from workqueue takes."),
	}
}

func (p *workqueueProvider) collectors() []prometheus.Collector {
	return []prometheus.Collector{p.depth, p.unfinished, p.longest, p.adds, p.retries, p.latency, p.work}
}

func (p *workqueueProvider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return p.depth.WithLabelValues(name)
}

func (p *workqueueProvider) NewAddsMetric(name string) workqueue.CounterMetric {
	return p.adds.WithLabelValues(name)
}

func (p *workqueueProvider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return p.latency.WithLabelValues(name)
}

func (p *workqueueProvider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return p.work.WithLabelValues(name)
}

func (p *workqueueProvider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.unfinished.WithLabelValues(name)
}

func (p *workqueueProvider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.longest.WithLabelValues(name)
}

func (p *workqueueProvider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return p.retries.WithLabelValues(name)
}

// GarbageCollectorMetrics are kube-controller-manager's garbage collector series
// (pkg/controller/garbagecollector/metrics): garbagecollector_controller_resources_sync_error_total
// and the histograms garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds and
// garbagecollector_controller_attempt_to_orphan_queue_retry_since_seconds, computed at each
// scrape from the items retrying then.
type GarbageCollectorMetrics struct {
	syncErrors prometheus.Counter
	mu         sync.Mutex
	retrying   map[string]func() []time.Duration
}

// GarbageCollector returns the garbage collector's series, registering them on first use.
func (m *Metrics) GarbageCollector() *GarbageCollectorMetrics {
	m.controllers.gcOnce.Do(func() {
		g := &GarbageCollectorMetrics{
			syncErrors: prometheus.NewCounter(prometheus.CounterOpts{Subsystem: "garbagecollector_controller",
				Name: "resources_sync_error_total", Help: "Number of garbage collector resources sync errors"}),
			retrying: map[string]func() []time.Duration{},
		}
		m.Registry.MustRegister(g.syncErrors, g)
		m.controllers.gc = g
	})
	return m.controllers.gc
}

// IncResourcesSyncError counts a failed sync of the watched resources.
func (g *GarbageCollectorMetrics) IncResourcesSyncError() { g.syncErrors.Inc() }

// SetRetrying gives the functions that return, at each scrape, how long each item of the
// attempt-to-delete and attempt-to-orphan queues has been retrying; nil reports none.
func (g *GarbageCollectorMetrics) SetRetrying(attemptToDelete, attemptToOrphan func() []time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.retrying["attempt_to_delete"], g.retrying["attempt_to_orphan"] = attemptToDelete, attemptToOrphan
}

// retryBuckets are kube's: 1ms to 10^6 s, in seconds.
var retryBuckets = prometheus.ExponentialBuckets(0.001, 10, 10)

// retryDesc describes the retry-since histogram of queue ("attempt_to_delete").
func retryDesc(queue string) *prometheus.Desc {
	return prometheus.NewDesc("garbagecollector_controller_"+queue+"_queue_retry_since_seconds",
		"How long in seconds an item has been retrying in "+map[string]string{
			"attempt_to_delete": "attempt to delete", "attempt_to_orphan": "attempt to orphan"}[queue]+" workqueue.", nil, nil)
}

// Describe implements prometheus.Collector.
func (g *GarbageCollectorMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- retryDesc("attempt_to_delete")
	ch <- retryDesc("attempt_to_orphan")
}

// Collect implements prometheus.Collector: one histogram per queue of the items retrying now.
func (g *GarbageCollectorMetrics) Collect(ch chan<- prometheus.Metric) {
	g.mu.Lock()
	sources := map[string]func() []time.Duration{}
	for k, v := range g.retrying {
		sources[k] = v
	}
	g.mu.Unlock()
	for _, queue := range []string{"attempt_to_delete", "attempt_to_orphan"} {
		var durations []time.Duration
		if f := sources[queue]; f != nil {
			durations = f()
		}
		buckets := make(map[float64]uint64, len(retryBuckets))
		for _, b := range retryBuckets {
			buckets[b] = 0
		}
		var sum float64
		for _, d := range durations {
			s := d.Seconds()
			sum += s
			for _, b := range retryBuckets {
				if s <= b {
					buckets[b]++
				}
			}
		}
		ch <- prometheus.MustNewConstHistogram(retryDesc(queue), uint64(len(durations)), sum, buckets)
	}
}
