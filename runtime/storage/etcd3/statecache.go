package etcd3

import (
	"sync"

	"k8s.io/utils/lru"
)

// stateCacheSize is how many keys' last known states each resource's store remembers. At
// ~1 KiB stored objects that is a few MiB per resource.
const stateCacheSize = 4096

// stateCache remembers, per etcd key, the last state this store read or wrote there: the
// key's ModRevision and value. GuaranteedUpdate and Delete start from it instead of reading
// etcd first, as kube-apiserver's start from the watch cache's object (its
// cachedExistingObject). That is safe because their transactions compare the ModRevision and
// one ModRevision names one value: a stale entry costs a failed transaction that returns the
// current state, never a lost or misplaced write. Reads never answer from it. Safe for
// concurrent use.
type stateCache struct {
	mu  sync.Mutex // makes remember's compare-and-add atomic
	lru *lru.Cache // etcd key -> knownState
}

// knownState is a key's value at one revision. data is never modified.
type knownState struct {
	rev  int64
	data []byte
}

func newStateCache(size int) *stateCache {
	return &stateCache{lru: lru.New(size)}
}

// get returns the last state remembered for key.
func (c *stateCache) get(key string) (knownState, bool) {
	v, ok := c.lru.Get(key)
	if !ok {
		return knownState{}, false
	}
	return v.(knownState), true
}

// remember records that key held data at revision rev, unless that or a newer state is known
// (racing writers may report out of order; one revision of a key names one value, so a
// repeated read changes nothing). data must not be modified afterwards.
func (c *stateCache) remember(key string, rev int64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.lru.Get(key); ok && v.(knownState).rev >= rev {
		return
	}
	c.lru.Add(key, knownState{rev: rev, data: data})
}

// forget drops what is known of key (it was deleted, or found absent).
func (c *stateCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(key)
}
