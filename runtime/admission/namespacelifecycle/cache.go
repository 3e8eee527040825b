package namespacelifecycle

import (
	"sync"
	"time"

	"github.com/apigen-dev/apigen/runtime/admission/informer"
	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
)

// forceLiveLookupTTL is how long after a namespace's DELETE was admitted the plugin reads
// that namespace from storage instead of its cache, as kube's forceLiveLookupTTL: the cache
// may not show Terminating yet.
const forceLiveLookupTTL = 30 * time.Second

// cache is the plugin's view of every namespace's phase: an informer.Cache of the namespaces
// (a list, then a watch), as kube's plugin reads a namespace informer, which it answers from
// only while the informer is watching. It is safe for concurrent use.
type cache struct {
	// namespaces is nil when the storage cannot list and watch (lookups always miss).
	namespaces *informer.Cache
	mu         sync.Mutex
	forceLive  map[string]time.Time
}

// lookup returns the cached phase of name; ok is false when the cache cannot answer (not
// watching, name unknown, or name recently deleted) and storage must be read.
func (c *cache) lookup(name string, now time.Time) (phase corev1.NamespacePhase, ok bool) {
	c.mu.Lock()
	forced := now.Before(c.forceLive[name])
	c.mu.Unlock()
	if forced || c.namespaces == nil || !c.namespaces.Watching() {
		return "", false
	}
	obj, ok := c.namespaces.Get("", name)
	if !ok {
		return "", false
	}
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return "", false
	}
	return ns.Status.Phase, true
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
