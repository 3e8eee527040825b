package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/util/workqueue"
)

// TestControllerMetrics: a named workqueue built with WorkqueueMetricsProvider counts its adds
// and depth under kube-controller-manager's names, and the garbage collector's series appear
// once asked for, with the retry-since histograms computed at scrape time.
func TestControllerMetrics(t *testing.T) {
	m := New()
	if n, err := testutil.GatherAndCount(m.Registry, "garbagecollector_controller_resources_sync_error_total"); err != nil || n != 0 {
		t.Fatalf("garbage collector series before it asked for them: %d %v", n, err)
	}
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "garbage_collector_attempt_to_delete", MetricsProvider: m.WorkqueueMetricsProvider()})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	gc := m.GarbageCollector()
	if m.GarbageCollector() != gc {
		t.Fatal("GarbageCollector returned a second set of series")
	}
	gc.IncResourcesSyncError()
	gc.SetRetrying(func() []time.Duration { return []time.Duration{2 * time.Millisecond, 5 * time.Second} }, nil)
	want := `
# HELP workqueue_adds_total Total number of adds handled by workqueue
# TYPE workqueue_adds_total counter
workqueue_adds_total{name="garbage_collector_attempt_to_delete"} 2
# HELP workqueue_depth Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{name="garbage_collector_attempt_to_delete"} 2
# HELP garbagecollector_controller_resources_sync_error_total Number of garbage collector resources sync errors
# TYPE garbagecollector_controller_resources_sync_error_total counter
garbagecollector_controller_resources_sync_error_total 1
`
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), "workqueue_adds_total", "workqueue_depth",
		"garbagecollector_controller_resources_sync_error_total"); err != nil {
		t.Error(err)
	}
	retry := `
# HELP garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds How long in seconds an item has been retrying in attempt to delete workqueue.
# TYPE garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds histogram
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="0.001"} 0
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="0.01"} 1
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="0.1"} 1
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="1"} 1
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="10"} 2
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="100"} 2
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="1000"} 2
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="10000"} 2
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="100000"} 2
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="1e+06"} 2
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_bucket{le="+Inf"} 2
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_sum 5.002
garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds_count 2
`
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(retry), "garbagecollector_controller_attempt_to_delete_queue_retry_since_seconds"); err != nil {
		t.Error(err)
	}
}
