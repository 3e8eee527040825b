package endpoints

import (
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Bounds of one scope's encodingCache: at most encodingCacheSize objects, each encoding at
// most maxCachedEncoding bytes (larger ones are encoded every time), so at most 16 MiB.
const (
	encodingCacheSize = 1024
	maxCachedEncoding = 16 << 10
)

// encodingCache remembers the JSON response last written for a GET of each object of one
// scope (one resource or subresource path in one version), so a GET of an object that has
// not changed since writes those bytes again instead of converting and encoding it, and a
// list splices its items' bytes (listJSON). The object's uid and resourceVersion identify
// the state it encodes: etcd gives one key one value per ModRevision, and a deleted and
// recreated object has a new uid. So a rest.Getter must return, for a given uid and
// resourceVersion, the same object (as one that reads storage does). Objects without either
// are never cached. kube-apiserver keeps encodings of watch-cache objects per encoder in the
// same way (cachingObject), keyed by the object instead.
//
// Reads share a read lock (a list of 500 reads 500 encodings; concurrent lists and gets do
// not queue behind one another, as they did behind an LRU's exclusive lock, which every hit
// takes to reorder its list): a hit only marks its entry used. When the cache is full, a
// new entry takes the place of the first entry not used since the clock hand last passed it
// (the CLOCK approximation of least recently used). Safe for concurrent use.
type encodingCache struct {
	mu     sync.RWMutex
	byName map[objectName]*cachedEncoding
	slots  []*cachedEncoding // at most encodingCacheSize; the clock's ring
	hand   int               // the next slot the clock looks at
}

// objectName is the key of an object in one scope.
type objectName struct{ namespace, name string }

// cachedEncoding is the encoding of one object state. Only used changes once in the cache;
// data is never modified.
type cachedEncoding struct {
	name            objectName
	uid             types.UID
	resourceVersion string
	data            []byte
	slot            int         // its index in slots
	used            atomic.Bool // read since the clock hand last passed
}

func newEncodingCache() *encodingCache {
	return &encodingCache{byName: map[objectName]*cachedEncoding{}}
}

// stateOf returns obj's cache key and state, or ok false when obj cannot be cached.
func stateOf(obj runtime.Object) (key objectName, uid types.UID, rv string, ok bool) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return objectName{}, "", "", false
	}
	uid, rv = acc.GetUID(), acc.GetResourceVersion()
	if uid == "" || rv == "" {
		return objectName{}, "", "", false
	}
	return objectName{acc.GetNamespace(), acc.GetName()}, uid, rv, true
}

// get returns the encoding remembered for obj's state. A nil cache has none.
func (c *encodingCache) get(obj runtime.Object) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	key, uid, rv, ok := stateOf(obj)
	if !ok {
		return nil, false
	}
	c.mu.RLock()
	e := c.byName[key]
	c.mu.RUnlock()
	if e == nil || e.uid != uid || e.resourceVersion != rv {
		return nil, false
	}
	if !e.used.Load() {
		e.used.Store(true)
	}
	return e.data, true
}

// add remembers data as the encoding of obj's state; data must not be modified afterwards.
// A nil cache remembers nothing.
func (c *encodingCache) add(obj runtime.Object, data []byte) {
	if c == nil {
		return
	}
	key, uid, rv, ok := stateOf(obj)
	if !ok || len(data) > maxCachedEncoding {
		return
	}
	e := &cachedEncoding{name: key, uid: uid, resourceVersion: rv, data: data}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.byName[key]; old != nil {
		e.slot = old.slot // the object's newer state takes its older one's place
	} else if len(c.slots) < encodingCacheSize {
		e.slot = len(c.slots)
		c.slots = append(c.slots, nil)
	} else {
		e.slot = c.evictLocked()
	}
	c.slots[e.slot] = e
	c.byName[key] = e
}

// evictLocked removes the entry the clock hand stops at, the first not used since the hand
// last passed it (clearing the marks of those it passes), and returns its slot. c.mu must be
// held for writing and the cache full.
// Readers marking entries as it goes cannot keep it going: after two turns it takes the
// entry under the hand.
func (c *encodingCache) evictLocked() int {
	for turn := 0; ; turn++ {
		e := c.slots[c.hand]
		i := c.hand
		c.hand = (c.hand + 1) % len(c.slots)
		if e.used.Load() && turn < 2*len(c.slots) {
			e.used.Store(false)
			continue
		}
		delete(c.byName, e.name)
		return i
	}
}
