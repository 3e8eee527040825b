package etcd3

import (
	"bytes"
	"hash/maphash"
	"sync"

	"k8s.io/utils/lru"
)

// stateCacheSize is how many keys' last known states each resource's store remembers. At
// ~1 KiB stored objects that is a few MiB per resource.
const stateCacheSize = 4096

// Under a watch cache a store keeps the bytes of only its recentStates most recent states,
// each of at most maxRecentState bytes (so at most 4 MiB per resource): a write that follows
// another of the same key before the cache has seen the first (a client updating an object
// right after its last update, a status write after a spec write) starts from them instead
// of reading etcd.
const (
	recentStates   = 256
	maxRecentState = 16 << 10
)

// stateCache remembers, per etcd key, the last state this store read or wrote there: the
// key's ModRevision and value. GuaranteedUpdate and Delete start from it instead of reading
// etcd first, as kube-apiserver's start from the watch cache's object (its
// cachedExistingObject). That is safe because their transactions compare the ModRevision and
// one ModRevision names one value: a stale entry costs a failed transaction that returns the
// current state, never a lost or misplaced write. Reads never answer from it. Safe for
// concurrent use.
//
// Under a watch cache (useDigests) it keeps, per key, only the digest of the bytes: the
// cache's object at the revision stands for them, so the store holds no second copy of the
// resource's objects. The bytes of the recentStates latest states are kept beside (recent),
// for the writes that come before the cache has caught up.
type stateCache struct {
	mu  sync.Mutex // makes remember's compare-and-add atomic
	lru *lru.Cache // etcd key -> knownState
	// recent, when not nil (under a watch cache), holds the latest states with their
	// bytes, and lru their digests only. Set once, before the store serves requests.
	recent *lru.Cache // etcd key -> knownState
}

// knownState is a key's value at one revision: its bytes (never modified), or nil and
// only their digest.
type knownState struct {
	rev    int64
	data   []byte
	digest digest
}

// digest identifies stored bytes without holding them: their length and a 64-bit hash. Two
// values with one digest are almost surely equal; a caller that acts on equal digests
// confirms with the bytes first (see GuaranteedUpdate's no-op).
type digest struct {
	n   int
	sum uint64
}

// digestSeed seeds every digest of the process.
var digestSeed = maphash.MakeSeed()

func digestOf(data []byte) digest {
	return digest{n: len(data), sum: maphash.Bytes(digestSeed, data)}
}

// holds reports whether data is the value of the known state: exactly when the bytes are
// known, else by digest. An absent key's state (no bytes) holds nothing.
func (k knownState) holds(data []byte) bool {
	if k.data != nil {
		return bytes.Equal(data, k.data)
	}
	return k.digest.n > 0 && k.digest == digestOf(data)
}

func newStateCache(size int) *stateCache {
	return &stateCache{lru: lru.New(size)}
}

// useDigests makes the cache keep digests, and bytes only for recent states (see
// stateCache). Call it before any other method.
func (c *stateCache) useDigests() {
	c.recent = lru.New(recentStates)
}

// get returns the last state remembered for key: with its bytes unless only their digest
// is kept.
func (c *stateCache) get(key string) (knownState, bool) {
	v, ok := c.lru.Get(key)
	if !ok {
		return knownState{}, false
	}
	known := v.(knownState)
	if c.recent != nil {
		if r, ok := c.recent.Get(key); ok && r.(knownState).rev == known.rev {
			return r.(knownState), true
		}
	}
	return known, true
}

// remember records that key held data at revision rev, unless that or a newer state is known
// (racing writers may report out of order; one revision of a key names one value, so a
// repeated read changes nothing). data must not be modified afterwards.
func (c *stateCache) remember(key string, rev int64, data []byte) {
	known := knownState{rev: rev, data: data}
	if c.recent != nil {
		known = knownState{rev: rev, digest: digestOf(data)}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.lru.Get(key); ok && v.(knownState).rev >= rev {
		return
	}
	c.lru.Add(key, known)
	if c.recent != nil {
		if len(data) <= maxRecentState {
			c.recent.Add(key, knownState{rev: rev, data: data})
		} else {
			c.recent.Remove(key)
		}
	}
}

// forget drops what is known of key (it was deleted, or found absent).
func (c *stateCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(key)
	if c.recent != nil {
		c.recent.Remove(key)
	}
}
