package namespacelifecycle

import (
	"context"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// forceLiveLookupTTL is how long after a namespace's DELETE was admitted the plugin reads
// that namespace from storage instead of its cache, as kube's forceLiveLookupTTL: the cache
// may not show Terminating yet.
const forceLiveLookupTTL = 30 * time.Second

// relistInterval is the wait before the cache lists and watches again after a failure.
const relistInterval = time.Second

// cache is the plugin's view of every namespace's phase, fed by a list and a watch, as kube's
// plugin reads a namespace informer. It is safe for concurrent use.
type cache struct {
	mu        sync.RWMutex
	synced    bool
	phases    map[string]corev1.NamespacePhase
	forceLive map[string]time.Time
}

// lookup returns the cached phase of name; ok is false when the cache cannot answer (not
// synced, name unknown, or name recently deleted) and storage must be read.
func (c *cache) lookup(name string, now time.Time) (phase corev1.NamespacePhase, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.synced || now.Before(c.forceLive[name]) {
		return "", false
	}
	phase, ok = c.phases[name]
	return phase, ok
}

// forceLiveLookup makes lookups of name miss for forceLiveLookupTTL from now.
func (c *cache) forceLiveLookup(name string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forceLive == nil {
		c.forceLive = map[string]time.Time{}
	}
	for n, until := range c.forceLive {
		if !now.Before(until) {
			delete(c.forceLive, n)
		}
	}
	c.forceLive[name] = now.Add(forceLiveLookupTTL)
}

// replace sets the cache to the namespaces of items and marks it synced.
func (c *cache) replace(items []runtime.Object) {
	phases := map[string]corev1.NamespacePhase{}
	for _, item := range items {
		if ns, ok := item.(*corev1.Namespace); ok {
			phases[ns.Name] = ns.Status.Phase
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phases, c.synced = phases, true
}

// apply records one watch event.
func (c *cache) apply(ev watch.Event) {
	ns, ok := ev.Object.(*corev1.Namespace)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Type {
	case watch.Added, watch.Modified:
		c.phases[ns.Name] = ns.Status.Phase
	case watch.Deleted:
		delete(c.phases, ns.Name)
	}
}

// unsync marks the cache unusable until the next replace.
func (c *cache) unsync() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.synced = false
}

// namespaceSource is what the cache lists and watches namespaces through.
type namespaceSource interface {
	rest.Lister
	rest.Watcher
}

// run keeps c in sync with source until ctx ends: list, then watch from the list's
// resourceVersion; after a failure or the end of the watch it is unsynced (lookups miss)
// until the next list.
func (c *cache) run(ctx context.Context, source namespaceSource) {
	for ctx.Err() == nil {
		_ = c.listAndWatch(ctx, source)
		c.unsync()
		select {
		case <-ctx.Done():
		case <-time.After(relistInterval):
		}
	}
}

// listAndWatch is one list and the watch that follows it, until the watch ends.
func (c *cache) listAndWatch(ctx context.Context, source namespaceSource) error {
	list, err := source.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return err
	}
	w, err := source.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: lm.GetResourceVersion()})
	if err != nil {
		return err
	}
	defer w.Stop()
	c.replace(items)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			if ev.Type == watch.Error {
				return apierrors.FromObject(ev.Object)
			}
			c.apply(ev)
		}
	}
}
