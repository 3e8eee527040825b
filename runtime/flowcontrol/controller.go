package flowcontrol

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission/informer"
	flowcontrolv1 "github.com/apigen-dev/apigen/runtime/apis/flowcontrol/v1"
	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
)

// The response headers naming the request's FlowSchema and priority level, as kube's.
const (
	HeaderFlowSchemaUID    = flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID
	HeaderPriorityLevelUID = flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID
)

// DefaultRequestWaitLimit bounds a request's wait in a queue when it has no deadline, and
// MaxRequestWaitLimit always, as kube's APF filter: a request waits at most a quarter of the
// time to its deadline, and at most a minute.
const (
	DefaultRequestWaitLimit = 15 * time.Second
	MaxRequestWaitLimit     = time.Minute
)

// Controller classifies and admits requests (Handler) under the configuration its caches
// hold. Build it with New; until Run's caches have synced it uses kube's mandatory objects
// alone (exempt and catch-all), as kube's controller starts. Safe for concurrent use.
type Controller struct {
	seats   int
	metrics *metrics.FlowControlMetrics
	log     *slog.Logger
	// counts, when not nil, returns the stored objects of a resource, for a list's width.
	counts ObjectCounts

	schemas, levels atomic.Pointer[informer.Cache]
	mu              sync.Mutex // serializes rebuilds
	cfg             atomic.Pointer[versioned]
}

// versioned is a config and the cache generations it was built from.
type versioned struct {
	cfg              *config
	synced           bool
	schemaGen, plGen uint64
}

// ObjectCounts returns how many objects of the group's resource are stored, and whether
// that is known (kube's storage object counts, refreshed every minute).
type ObjectCounts func(group, resource string) (int64, bool)

// The width of a list, as kube's list work estimator: a seat per ObjectsPerSeat objects
// stored, between MinimumSeats and MaximumSeats (and at most the level's seats).
const (
	ObjectsPerSeat = 100
	MinimumSeats   = 1
	MaximumSeats   = 10
)

// SetObjectCounts makes a list take a seat per ObjectsPerSeat objects of its resource that
// counts reports stored (one seat when it reports none), as kube's work estimation; without
// it every request takes one seat. Call it before the controller serves.
func (c *Controller) SetObjectCounts(counts ObjectCounts) { c.counts = counts }

// width is the seats a request takes: for a list, ceil(objects stored / ObjectsPerSeat)
// within [MinimumSeats, MaximumSeats]; one for every other request.
func (c *Controller) width(info *request.RequestInfo) int {
	if c.counts == nil || info.Verb != "list" || !info.IsResourceRequest {
		return MinimumSeats
	}
	n, ok := c.counts(info.APIGroup, info.Resource)
	if !ok {
		return MinimumSeats // kube: an unknown count, a cheap request
	}
	return int(max(MinimumSeats, min(MaximumSeats, (n+ObjectsPerSeat-1)/ObjectsPerSeat)))
}

// New returns a controller sharing seats (the server's concurrency limit: kube's
// --max-requests-inflight plus --max-mutating-requests-inflight) among the priority levels;
// m, when not nil, receives the apiserver_flowcontrol_* series.
func New(seats int, m *metrics.FlowControlMetrics, log *slog.Logger) (*Controller, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Controller{seats: seats, metrics: m, log: log}
	cfg, err := digest(nil, nil, seats, nil)
	if err != nil {
		return nil, err
	}
	c.cfg.Store(&versioned{cfg: cfg})
	c.reportLimits(cfg)
	return c, nil
}

// Run reads the configuration from the FlowSchemas and PriorityLevelConfigurations of
// schemas and levels (their stores: a list, then a watch) until ctx ends. It returns at
// once; the caches fill in the background.
func (c *Controller) Run(ctx context.Context, schemas, levels informer.Source) {
	sc, lc := informer.New(schemas), informer.New(levels)
	c.schemas.Store(sc)
	c.levels.Store(lc)
	go sc.Run(ctx)
	go lc.Run(ctx)
}

// WaitForSync waits until the configuration has been read from storage or ctx ends, and
// reports whether it has.
func (c *Controller) WaitForSync(ctx context.Context) bool {
	sc, lc := c.schemas.Load(), c.levels.Load()
	if sc == nil || lc == nil || !sc.WaitForSync(ctx) || !lc.WaitForSync(ctx) {
		return false
	}
	return c.current().synced
}

// current returns the config of the caches' present content, rebuilding it when a watch
// event has changed them since the last build.
func (c *Controller) current() *versioned {
	v := c.cfg.Load()
	sc, lc := c.schemas.Load(), c.levels.Load()
	if sc == nil || lc == nil || !sc.HasSynced() || !lc.HasSynced() {
		return v
	}
	if v.synced && v.schemaGen == sc.Generation() && v.plGen == lc.Generation() {
		return v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v = c.cfg.Load()
	sg, pg := sc.Generation(), lc.Generation()
	if v.synced && v.schemaGen == sg && v.plGen == pg {
		return v
	}
	cfg, err := digest(typed[*flowcontrolv1.FlowSchema](sc.List()), typed[*flowcontrolv1.PriorityLevelConfiguration](lc.List()), c.seats, v.cfg)
	if err != nil {
		c.log.Error("cannot digest the flow control configuration; keeping the previous one", "err", err)
		return v
	}
	v = &versioned{cfg: cfg, synced: true, schemaGen: sg, plGen: pg}
	c.cfg.Store(v)
	c.reportLimits(cfg)
	return v
}

// typed returns the objects of type T among objs.
func typed[T runtime.Object](objs []runtime.Object) []T {
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		if t, ok := o.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// reportLimits sets the nominal limit series of cfg's levels.
func (c *Controller) reportLimits(cfg *config) {
	if c.metrics == nil {
		return
	}
	for name, l := range cfg.levels {
		c.metrics.SetNominalLimit(name, l.seats)
	}
}

// classify returns the schema matching the request and its flow's hash: the first schema
// in matching order whose rules match, else the catch-all.
func (cfg *config) classify(u *request.User, info *request.RequestInfo) (*schema, uint64) {
	s := cfg.catchAll
	for _, x := range cfg.schemas {
		if matchesSchema(x.fs, u, info) {
			s = x
			break
		}
	}
	var distinguisher string
	if d := s.fs.Spec.DistinguisherMethod; d != nil {
		switch d.Type {
		case flowcontrolv1.FlowDistinguisherMethodByUserType:
			distinguisher = u.Name
		case flowcontrolv1.FlowDistinguisherMethodByNamespaceType:
			distinguisher = info.Namespace
		}
	}
	return s, hashFlow(s.fs.Name, distinguisher)
}

// hashFlow is the hash of the flow (schema, distinguisher) that deals its hand of queues:
// FNV-1a (64 bits) of the two, a zero byte between them, without allocating.
func hashFlow(schema, distinguisher string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := range len(schema) {
		h = (h ^ uint64(schema[i])) * prime
	}
	h *= prime // the separator: h ^ 0, times the prime
	for i := range len(distinguisher) {
		h = (h ^ uint64(distinguisher[i])) * prime
	}
	return h
}

// unsecured is the user of a request that has none (a server without authentication,
// --plain-http), as kube-apiserver's former insecure port named it: in system:masters, so
// exempt.
var unsecured = &request.User{Name: "system:unsecured", Groups: []string{"system:masters", "system:authenticated"}}

// Handler wraps h in API Priority and Fairness: each request is classified, its response
// gets the X-Kubernetes-PF-* headers, and it runs once its priority level gives it a seat;
// one that gets none (queue full, Reject level full, or its wait past a quarter of its
// deadline, at most a minute) is answered 429 TooManyRequests "Too many requests, please
// try again later." with Retry-After: 1, as kube-apiserver's. It needs the RequestInfo and
// the user in the request's context (a request without one, on a server without
// authentication, is system:unsecured in system:masters: exempt). A watch frees its seat as soon as it is dispatched.
func (c *Controller) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		info, ok := request.RequestInfoFrom(ctx)
		if !ok {
			info = &request.RequestInfo{Path: r.URL.Path, Verb: "get"}
		}
		u, ok := request.UserFrom(ctx)
		if !ok {
			u = unsecured
		}
		s, hash := c.current().cfg.classify(u, info)
		pl, fs := s.level.pl.Name, s.fs.Name
		w.Header().Set(HeaderFlowSchemaUID, string(s.fs.UID))
		w.Header().Set(HeaderPriorityLevelUID, string(s.level.pl.UID))
		if s.level.set.exempt { // no seat, no wait: counted only
			if c.metrics != nil {
				c.metrics.Dispatched(pl, fs)
				c.metrics.AddExecuting(pl, fs, 1)
				defer c.metrics.AddExecuting(pl, fs, -1)
			}
			h.ServeHTTP(w, r)
			return
		}
		queued := func(delta int) {
			if c.metrics != nil {
				c.metrics.AddInQueue(pl, fs, delta)
			}
		}
		start := time.Now()
		release, err := s.level.set.admit(ctx, waitLimit(ctx), hash, c.width(info), queued)
		if err != nil {
			reason := err.(*errNoSeat).reason
			if c.metrics != nil {
				c.metrics.Rejected(pl, fs, reason)
				c.metrics.ObserveWait(pl, fs, false, time.Since(start))
			}
			responsewriters.WriteError(w, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
			return
		}
		if c.metrics != nil {
			c.metrics.Dispatched(pl, fs)
			c.metrics.ObserveWait(pl, fs, true, time.Since(start))
		}
		if info.Verb == "watch" {
			release()
			h.ServeHTTP(w, r)
			return
		}
		if c.metrics != nil {
			c.metrics.AddExecuting(pl, fs, 1)
			defer c.metrics.AddExecuting(pl, fs, -1)
		}
		defer release()
		h.ServeHTTP(w, r)
	})
}

// waitLimit bounds a request's wait for a seat, as kube's getRequestWaitContext: a quarter
// of the time from now to the request's deadline, DefaultRequestWaitLimit without one, at
// most MaxRequestWaitLimit.
func waitLimit(ctx context.Context) time.Duration {
	limit := DefaultRequestWaitLimit
	if d, ok := ctx.Deadline(); ok {
		limit = time.Until(d) / 4
	}
	return min(limit, MaxRequestWaitLimit)
}
