package garbagecollector

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"

	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/request"
)

// Defaults of Config.
const (
	// DefaultWorkers is kube-controller-manager's --concurrent-gc-syncs.
	DefaultWorkers = 20
	// DefaultResyncPeriod is how often the Sources are asked again for their resources, as
	// kube-controller-manager re-reads discovery for its garbage collector every 30 seconds.
	DefaultResyncPeriod = 30 * time.Second
)

// collectorUser is the user the collector's reads and writes are made as, as
// kube-controller-manager's garbage collector's service account.
var collectorUser = &request.User{Name: "system:serviceaccount:kube-system:generic-garbage-collector",
	Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", request.AllAuthenticated}}

// Queue names, as kube-controller-manager's (the "name" label of the workqueue_* series).
const (
	graphChangesQueue    = "garbage_collector_graph_changes"
	attemptToDeleteQueue = "garbage_collector_attempt_to_delete"
	attemptToOrphanQueue = "garbage_collector_attempt_to_orphan"
)

// Config configures a GarbageCollector.
type Config struct {
	// Sources list the resources to watch; every resource of every Source is watched.
	Sources []Source
	// Log receives the collector's logs; nil discards them.
	Log *slog.Logger
	// Events receives the events it reports (OwnerRefInvalidNamespace); nil logs them to Log
	// (LogEvents).
	Events EventRecorder
	// Metrics receives the workqueue_* and garbagecollector_controller_* series; nil records
	// none.
	Metrics *metrics.Metrics
	// Workers is the number of workers of each of the attempt-to-delete and
	// attempt-to-orphan queues: the most items of each processed at once, each on a
	// goroutine while under way (runWorkers); 0 means DefaultWorkers.
	Workers int
	// ResyncPeriod is how often the Sources are asked again (Resync asks at once); 0 means
	// DefaultResyncPeriod.
	ResyncPeriod time.Duration
}

// GarbageCollector deletes the objects whose owners are gone, as kube-controller-manager's
// garbage collector, in the server's own process: see the package doc. Build it with New and
// run it with Run; it is safe for concurrent use.
type GarbageCollector struct {
	cfg     Config
	resync  chan struct{}
	running atomic.Bool
	current atomic.Pointer[collector]
	deletes *retryTracker
	orphans *retryTracker
}

// New returns a collector over cfg's sources; it does nothing until Run. It registers its
// metrics in cfg.Metrics once, whatever the number of Runs.
func New(cfg Config) *GarbageCollector {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Events == nil {
		cfg.Events = LogEvents(cfg.Log)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.ResyncPeriod <= 0 {
		cfg.ResyncPeriod = DefaultResyncPeriod
	}
	gc := &GarbageCollector{cfg: cfg, resync: make(chan struct{}, 1), deletes: newRetryTracker(), orphans: newRetryTracker()}
	if cfg.Metrics != nil {
		cfg.Metrics.GarbageCollector().SetRetrying(gc.deletes.durations, gc.orphans.durations)
	}
	return gc
}

// Resync asks the running collector to read its Sources again now (a resource appeared or
// went, such as a custom resource); it never blocks. Without a running collector it does
// nothing but make the next Run's first resync immediate, which it is anyway.
func (gc *GarbageCollector) Resync() {
	select {
	case gc.resync <- struct{}{}:
	default:
	}
}

// IsSynced reports whether a Run is under way and every watched resource's informer has
// listed its objects, so the collector acts on a complete graph.
func (gc *GarbageCollector) IsSynced() bool {
	c := gc.current.Load()
	return c != nil && c.synced()
}

// Run collects garbage until ctx ends, then stops its informers and workers and returns nil;
// it can be called again after it returns (with a fresh graph, as after a restart), so that
// it may run under leader election. It fails at once if a Run is already under way. Workers
// start once every informer has listed, as kube's garbage collector waits for its monitors.
func (gc *GarbageCollector) Run(ctx context.Context) error {
	if !gc.running.CompareAndSwap(false, true) {
		return errors.New("the garbage collector is already running")
	}
	defer gc.running.Store(false)
	ctx = request.WithUser(ctx, collectorUser) // whom admission sees on the collector's writes
	c := gc.newCollector()
	gc.current.Store(c)
	defer gc.current.Store(nil)
	var wg sync.WaitGroup
	wg.Go(c.runGraphChanges)
	c.syncMonitors(ctx, gc.resources())
	if c.waitForSync(ctx, 0) {
		c.log.Info("garbage collector: all resource monitors have synced, collecting garbage", "resources", c.monitorCount())
		wg.Go(func() {
			runWorkers(c.attemptToDelete, gc.cfg.Workers, func(n *node) { c.processAttemptToDelete(ctx, n) })
		})
		wg.Go(func() {
			runWorkers(c.attemptToOrphan, gc.cfg.Workers, func(n *node) { c.processAttemptToOrphan(ctx, n) })
		})
		gc.resyncLoop(ctx, c)
	}
	c.shutdown()
	wg.Wait()
	return nil
}

// resyncLoop reads the Sources again every ResyncPeriod and on Resync until ctx ends; when
// the resources changed it pauses the workers until the new informers have listed (at most
// one ResyncPeriod), as kube's GarbageCollector.Sync.
func (gc *GarbageCollector) resyncLoop(ctx context.Context, c *collector) {
	t := time.NewTicker(gc.cfg.ResyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-gc.resync:
		}
		c.workerLock.Lock()
		changed, retired := c.syncMonitors(ctx, gc.resources())
		if changed && !c.waitForSync(ctx, gc.cfg.ResyncPeriod) && ctx.Err() == nil {
			gc.syncFailed(errors.New("timed out waiting for the new resource monitors to sync"))
		}
		for _, m := range retired {
			m.halt()
		}
		c.workerLock.Unlock()
	}
}

// syncFailed logs err and counts it in garbagecollector_controller_resources_sync_error_total.
func (gc *GarbageCollector) syncFailed(err error) {
	gc.cfg.Log.Warn("garbage collector: cannot sync the watched resources", "err", err)
	if gc.cfg.Metrics != nil {
		gc.cfg.Metrics.GarbageCollector().IncResourcesSyncError()
	}
}

// resources gathers every Source's resources, the first of a GroupResource winning.
func (gc *GarbageCollector) resources() []Resource {
	var out []Resource
	seen := map[schema.GroupResource]bool{}
	for _, s := range gc.cfg.Sources {
		for _, r := range s.Resources() {
			if !seen[r.GroupResource()] {
				seen[r.GroupResource()] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// collector is the state of one Run: kube's GraphBuilder (the graph, its monitors and its
// input queue) and GarbageCollector (the work queues) in one.
type collector struct {
	log     *slog.Logger
	events  EventRecorder
	metrics *metrics.Metrics

	graphChanges     workqueue.TypedRateLimitingInterface[*event]
	attemptToDelete  workqueue.TypedRateLimitingInterface[*node]
	attemptToOrphan  workqueue.TypedRateLimitingInterface[*node]
	uidToNode        *uidToNode
	absentOwnerCache *referenceCache
	deleteRetries    *retryTracker
	orphanRetries    *retryTracker

	// mu guards monitors and mapper; workerLock is held (read) by a worker processing an item
	// and (write) by a resync that changes the monitors.
	mu         sync.RWMutex
	monitors   map[schema.GroupResource]*monitor
	mapper     *restMapper
	workerLock sync.RWMutex
}

// newCollector builds the state of a Run.
func (gc *GarbageCollector) newCollector() *collector {
	var provider workqueue.MetricsProvider
	if gc.cfg.Metrics != nil {
		provider = gc.cfg.Metrics.WorkqueueMetricsProvider()
	}
	return &collector{
		log: gc.cfg.Log, events: gc.cfg.Events, metrics: gc.cfg.Metrics,
		graphChanges: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[*event](),
			workqueue.TypedRateLimitingQueueConfig[*event]{Name: graphChangesQueue, MetricsProvider: provider}),
		attemptToDelete: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[*node](),
			workqueue.TypedRateLimitingQueueConfig[*node]{Name: attemptToDeleteQueue, MetricsProvider: provider}),
		attemptToOrphan: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[*node](),
			workqueue.TypedRateLimitingQueueConfig[*node]{Name: attemptToOrphanQueue, MetricsProvider: provider}),
		uidToNode:        newUIDToNode(),
		absentOwnerCache: newReferenceCache(absentOwnerCacheSize),
		deleteRetries:    gc.deletes,
		orphanRetries:    gc.orphans,
		monitors:         map[schema.GroupResource]*monitor{},
		mapper:           newRESTMapper(nil),
	}
}

// syncMonitors watches exactly resources, as kube's GraphBuilder.syncMonitors: it starts an
// informer for each new resource and stops those of resources that went; changed reports
// whether any started. A resource whose preferred version, kind or scope changed gets a new
// informer while the old one goes on until the caller halts it (retired), once the new one
// has listed, so that no deletion in between goes unseen.
func (c *collector) syncMonitors(ctx context.Context, resources []Resource) (changed bool, retired []*monitor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mapper = newRESTMapper(resources)
	want := make(map[schema.GroupResource]Resource, len(resources))
	for _, r := range resources {
		want[r.GroupResource()] = r
	}
	for gr, m := range c.monitors {
		if _, ok := want[gr]; !ok {
			m.halt()
			delete(c.monitors, gr)
		}
	}
	for gr, r := range want {
		old, ok := c.monitors[gr]
		if ok && sameResource(r, old.resource) {
			continue
		}
		m := newMonitor(r, c.graphChanges.Add, c.log)
		m.run(ctx)
		c.monitors[gr] = m
		changed = true
		if ok {
			retired = append(retired, old)
		}
	}
	return changed, retired
}

// sameResource reports whether a monitor of b watches a as it should: same preferred
// version, kind and scope (its storage may be another over the same keys, and its other
// versions only matter to the REST mapper).
func sameResource(a, b Resource) bool {
	return a.GroupVersionResource == b.GroupVersionResource && a.Kind == b.Kind && a.Namespaced == b.Namespaced
}

// synced reports whether every monitor's informer has listed.
func (c *collector) synced() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, m := range c.monitors {
		if !m.hasSynced() {
			return false
		}
	}
	return true
}

// monitorCount is the number of watched resources.
func (c *collector) monitorCount() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.monitors)
}

// waitForSync polls synced until it holds (true), ctx ends or, when limit > 0, limit passes.
func (c *collector) waitForSync(ctx context.Context, limit time.Duration) bool {
	var deadline <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !c.synced() {
		select {
		case <-ctx.Done():
			return false
		case <-deadline:
			return false
		case <-tick.C:
		}
	}
	return true
}

// shutdown stops the informers and the queues (their workers then return).
func (c *collector) shutdown() {
	c.mu.Lock()
	for gr, m := range c.monitors {
		m.halt()
		delete(c.monitors, gr)
	}
	c.mu.Unlock()
	c.attemptToDelete.ShutDown()
	c.attemptToOrphan.ShutDown()
	c.graphChanges.ShutDown()
}

// observed reports whether the graph holds an observed (not virtual) node for uid, for
// tests, as kube's GraphHasUID.
func (gc *GarbageCollector) observed(uid types.UID) bool {
	c := gc.current.Load()
	if c == nil {
		return false
	}
	n, ok := c.uidToNode.Read(uid)
	return ok && n.isObserved()
}
