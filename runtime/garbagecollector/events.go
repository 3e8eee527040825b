package garbagecollector

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/lru"
)

// EventRecorder receives the events the collector reports about objects, as client-go's
// record.EventRecorder (which satisfies it): object is a *corev1.ObjectReference to the
// object concerned, eventtype corev1.EventTypeWarning or EventTypeNormal.
type EventRecorder interface {
	Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any)
}

// LogEvents returns an EventRecorder writing each event to log (Warning events at warn level,
// others at info), for a server that serves no Events API of its own.
func LogEvents(log *slog.Logger) EventRecorder {
	return logRecorder{log: log}
}

type logRecorder struct{ log *slog.Logger }

// Eventf logs the event with the object's coordinates.
func (r logRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	level := slog.LevelInfo
	if eventtype == corev1.EventTypeWarning {
		level = slog.LevelWarn
	}
	attrs := []any{"type", eventtype, "reason", reason, "message", fmt.Sprintf(messageFmt, args...)}
	if ref, ok := object.(*corev1.ObjectReference); ok {
		attrs = append(attrs, "object", fmt.Sprintf("%s/%s %s/%s", ref.APIVersion, ref.Kind, ref.Namespace, ref.Name), "uid", ref.UID)
	}
	r.log.Log(context.Background(), level, "event", attrs...)
}

// ReasonOwnerRefInvalidNamespace is the reason of the Warning event about a dependent whose
// ownerReference names a namespaced owner in another namespace, or a namespaced owner from a
// cluster-scoped dependent, as kube's garbage collector reports it. The reference never
// resolves: the dependent is not collected through it.
const ReasonOwnerRefInvalidNamespace = "OwnerRefInvalidNamespace"

// reportInvalidNamespaceOwnerRef reports n's reference to ownerUID as invalid, as kube's
// reportInvalidNamespaceOwnerRef.
func (c *collector) reportInvalidNamespaceOwnerRef(n *node, ownerUID types.UID) {
	for _, ref := range n.getOwners() {
		if ref.UID != ownerUID {
			continue
		}
		invalid := ownerCoordinates(ref, n.identity.Namespace)
		c.events.Eventf(&corev1.ObjectReference{Kind: n.identity.Kind, APIVersion: n.identity.APIVersion,
			Namespace: n.identity.Namespace, Name: n.identity.Name, UID: n.identity.UID},
			corev1.EventTypeWarning, ReasonOwnerRefInvalidNamespace, "ownerRef %s does not exist in namespace %q", invalid, n.identity.Namespace)
		return
	}
}

// absentOwnerCacheSize is kube's size of the cache of owners known not to exist.
const absentOwnerCacheSize = 500

// referenceCache remembers the latest owners found not to exist, as kube's ReferenceCache (an
// LRU, so that a flood of dependents of one deleted owner needs one lookup).
type referenceCache struct {
	cache *lru.Cache
}

func newReferenceCache(size int) *referenceCache { return &referenceCache{cache: lru.New(size)} }

func (c *referenceCache) Add(r objectReference) { c.cache.Add(r, nil) }

func (c *referenceCache) Has(r objectReference) bool {
	_, ok := c.cache.Get(r)
	return ok
}

// retryTracker remembers since when each item of a queue has been retrying, for the
// garbagecollector_controller_*_queue_retry_since_seconds histograms, as kube's QueueMetrics.
type retryTracker struct {
	mu    sync.Mutex
	since map[*node]time.Time
}

func newRetryTracker() *retryTracker { return &retryTracker{since: map[*node]time.Time{}} }

func (t *retryTracker) retrying(n *node) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.since[n]; !ok {
		t.since[n] = time.Now()
	}
}

func (t *retryTracker) forget(n *node) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.since, n)
}

// durations returns how long each retrying item has been retrying.
func (t *retryTracker) durations() []time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	out := make([]time.Duration, 0, len(t.since))
	for _, since := range t.since {
		out = append(out, now.Sub(since))
	}
	return out
}
