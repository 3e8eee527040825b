package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// flowcontrolWaitBuckets are kube-apiserver's buckets of
// apiserver_flowcontrol_request_wait_duration_seconds, in seconds.
var flowcontrolWaitBuckets = []float64{0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30}

// FlowControlMetrics are API Priority and Fairness's series, under kube-apiserver's names and
// labels (k8s.io/apiserver/pkg/util/flowcontrol/metrics): apiserver_flowcontrol_dispatched_requests_total,
// apiserver_flowcontrol_rejected_requests_total (reason "queue-full", "concurrency-limit",
// "time-out" or "cancelled"), apiserver_flowcontrol_current_inqueue_requests,
// apiserver_flowcontrol_current_executing_requests,
// apiserver_flowcontrol_request_wait_duration_seconds (execute "true" or "false") and
// apiserver_flowcontrol_nominal_limit_seats. Safe for concurrent use.
type FlowControlMetrics struct {
	dispatched *prometheus.CounterVec
	rejected   *prometheus.CounterVec
	inQueue    *prometheus.GaugeVec
	executing  *prometheus.GaugeVec
	wait       *prometheus.HistogramVec
	nominal    *prometheus.GaugeVec
}

// flowcontrolOnce guards the registration of FlowControl's series, one set per Metrics.
type flowcontrolOnce struct {
	once sync.Once
	fc   *FlowControlMetrics
}

// FlowControl returns API Priority and Fairness's series, registering them on first use.
func (m *Metrics) FlowControl() *FlowControlMetrics {
	m.flowcontrol.once.Do(func() {
		pf := []string{"priority_level", "flow_schema"}
		f := &FlowControlMetrics{
			dispatched: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_flowcontrol_dispatched_requests_total",
				Help: "Number of requests executed by API Priority and Fairness subsystem"}, pf),
			rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_flowcontrol_rejected_requests_total",
				Help: "Number of requests rejected by API Priority and Fairness subsystem"}, append(pf[:2:2], "reason")),
			inQueue: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_flowcontrol_current_inqueue_requests",
				Help: "Number of requests currently pending in queues of the API Priority and Fairness subsystem"}, pf),
			executing: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_flowcontrol_current_executing_requests",
				Help: "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem"}, pf),
			wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "apiserver_flowcontrol_request_wait_duration_seconds",
				Help: "Length of time a request spent waiting in its queue", Buckets: flowcontrolWaitBuckets}, append(pf[:2:2], "execute")),
			nominal: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_flowcontrol_nominal_limit_seats",
				Help: "Nominal number of execution seats configured for each priority level"}, []string{"priority_level"}),
		}
		m.Registry.MustRegister(f.dispatched, f.rejected, f.inQueue, f.executing, f.wait, f.nominal)
		m.flowcontrol.fc = f
	})
	return m.flowcontrol.fc
}

// Dispatched counts a request of the priority level and flow schema that began executing.
func (f *FlowControlMetrics) Dispatched(pl, fs string) { f.dispatched.WithLabelValues(pl, fs).Inc() }

// Rejected counts a request refused with 429 for reason ("queue-full", "concurrency-limit",
// "time-out", "cancelled").
func (f *FlowControlMetrics) Rejected(pl, fs, reason string) {
	f.rejected.WithLabelValues(pl, fs, reason).Inc()
}

// AddInQueue adds delta to the requests waiting in the priority level's queues.
func (f *FlowControlMetrics) AddInQueue(pl, fs string, delta int) {
	f.inQueue.WithLabelValues(pl, fs).Add(float64(delta))
}

// AddExecuting adds delta to the requests executing in the priority level.
func (f *FlowControlMetrics) AddExecuting(pl, fs string, delta int) {
	f.executing.WithLabelValues(pl, fs).Add(float64(delta))
}

// ObserveWait records how long a request waited before it executed (execute true) or was
// rejected (false).
func (f *FlowControlMetrics) ObserveWait(pl, fs string, execute bool, d time.Duration) {
	e := "false"
	if execute {
		e = "true"
	}
	f.wait.WithLabelValues(pl, fs, e).Observe(d.Seconds())
}

// SetNominalLimit sets the priority level's nominal concurrency limit, in seats.
func (f *FlowControlMetrics) SetNominalLimit(pl string, seats int) {
	f.nominal.WithLabelValues(pl).Set(float64(seats))
}
