package endpoints

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Bounds of one scope's encodingCache: its encodings hold at most encodingCacheBytes in
// all (the JSON of 10,000 ~1.8 KB objects, a list kubectl and informers read whole, fits),
// each at most maxCachedEncoding bytes (larger ones are encoded every time); an encoding
// not read for encodingIdle (between one and two of them) is dropped, so encodings cost
// memory only while the objects they encode are being read, and an idle server holds none.
const (
	encodingCacheBytes = 32 << 20
	maxCachedEncoding  = 16 << 10
	encodingIdle       = 10 * time.Second
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
// new entry takes the room of the first entries not used since the clock hand last passed
// them (the CLOCK approximation of least recently used); and while the cache holds entries,
// a timer drops every encodingIdle those not used since it last ran (no goroutine waits for
// it, and none is left once the cache is empty). Safe for concurrent use.
type encodingCache struct {
	mu     sync.RWMutex
	byName map[objectName]*cachedEncoding
	slots  []*cachedEncoding // the clock's ring; nil where an entry was dropped (free)
	free   []int             // the nil slots
	hand   int               // the next slot the clock looks at
	bytes  int               // the encodings' bytes in all, at most encodingCacheBytes
	aging  bool              // the timer that runs age is set (while entries are held)
}

// objectName is the key of an object in one scope.
type objectName struct{ namespace, name string }

// cachedEncoding is the encoding of one object state. Once in the cache, name, uid and
// resourceVersion are read and replaced (by equal strings held elsewhere: rekey) only under
// the cache's mu, used changes without it, and data is never modified.
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
	hit := e != nil && e.uid == uid && e.resourceVersion == rv
	rekey := hit && !(sameBytes(e.name.name, key.name) && sameBytes(e.uid, uid) && sameBytes(e.resourceVersion, rv))
	c.mu.RUnlock()
	if !hit {
		return nil, false
	}
	if rekey {
		c.rekey(e, key, uid, rv)
	}
	if !e.used.Load() {
		e.used.Store(true)
	}
	return e.data, true
}

// rekey makes the name, uid and resourceVersion of e those given, equal to e's but held in
// other memory (another decoded copy of the object: the one the watch cache keeps rather
// than the one a first list decoded for itself), also as the name the map holds for e, so
// that the next lookups of this copy compare string pointers rather than bytes: a list of
// 10,000 cached encodings spent 6 % of the server's CPU reading, to compare them, names and
// uids that nothing else read.
func (c *encodingCache) rekey(e *cachedEncoding, key objectName, uid types.UID, rv string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byName[key] == e {
		c.byName[key] = e // a map assignment stores the key given when it equals the one held
		e.name, e.uid, e.resourceVersion = key, uid, rv
	}
}

// sameBytes reports whether a and b, of equal length, are held in the same memory.
func sameBytes[S ~string](a, b S) bool {
	return unsafe.StringData(string(a)) == unsafe.StringData(string(b))
}

// add remembers a copy of data, exactly its size (an encoder's buffer has grown past it), as
// the encoding of obj's state. A nil cache remembers nothing.
func (c *encodingCache) add(obj runtime.Object, data []byte) {
	if c == nil {
		return
	}
	key, uid, rv, ok := stateOf(obj)
	if !ok || len(data) > maxCachedEncoding {
		return
	}
	e := &cachedEncoding{name: key, uid: uid, resourceVersion: rv, data: append(make([]byte, 0, len(data)), data...)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.aging {
		c.aging = true
		time.AfterFunc(encodingIdle, c.age)
	}
	if old := c.byName[key]; old != nil {
		c.dropLocked(old) // the object's newer state takes its older one's place
	}
	for c.bytes+len(data) > encodingCacheBytes && len(c.byName) > 0 {
		c.evictLocked()
	}
	if n := len(c.free); n > 0 {
		e.slot, c.free = c.free[n-1], c.free[:n-1]
	} else {
		e.slot = len(c.slots)
		c.slots = append(c.slots, nil)
	}
	c.slots[e.slot] = e
	c.byName[key] = e
	c.bytes += len(data)
}

// dropLocked removes e from the cache, freeing its slot. c.mu must be held for writing.
func (c *encodingCache) dropLocked(e *cachedEncoding) {
	delete(c.byName, e.name)
	c.slots[e.slot] = nil
	c.free = append(c.free, e.slot)
	c.bytes -= len(e.data)
}

// evictLocked drops the entry the clock hand stops at, the first not used since the hand
// last passed it (clearing the marks of those it passes). c.mu must be held for writing and
// the cache not empty. Readers marking entries as it goes cannot keep it going: after two
// turns it takes the entry under the hand.
func (c *encodingCache) evictLocked() {
	for turn := 0; ; turn++ {
		e := c.slots[c.hand]
		c.hand = (c.hand + 1) % len(c.slots)
		if e == nil {
			continue
		}
		if e.used.Load() && turn < 2*len(c.slots) {
			e.used.Store(false)
			continue
		}
		c.dropLocked(e)
		return
	}
}

// age drops the entries not used since it last ran (ageLocked), and runs again after
// encodingIdle while entries are left.
func (c *encodingCache) age() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ageLocked()
	if len(c.byName) > 0 {
		time.AfterFunc(encodingIdle, c.age)
	} else {
		c.aging = false
	}
}

// ageLocked drops the entries not used since the last time it ran, and clears the marks of
// the others. With every entry gone, the ring's memory goes too. c.mu must be held for
// writing.
func (c *encodingCache) ageLocked() {
	for _, e := range c.slots {
		switch {
		case e == nil:
		case e.used.Load():
			e.used.Store(false)
		default:
			c.dropLocked(e)
		}
	}
	if len(c.byName) == 0 {
		c.slots, c.free, c.hand = nil, nil, 0
	}
}
