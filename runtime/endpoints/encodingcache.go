package endpoints

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/lru"
)

// Bounds of one scope's encodingCache: at most encodingCacheSize objects, each encoding at
// most maxCachedEncoding bytes (larger ones are encoded every time), so at most 16 MiB.
const (
	encodingCacheSize = 1024
	maxCachedEncoding = 16 << 10
)

// encodingCache remembers the JSON response last written for a GET of each object of one
// scope (one resource or subresource path in one version), so a GET of an object that has
// not changed since writes those bytes again instead of converting and encoding it. The
// object's uid and resourceVersion identify the state it encodes: etcd gives one key one
// value per ModRevision, and a deleted and recreated object has a new uid. So a rest.Getter
// must return, for a given uid and resourceVersion, the same object (as one that reads
// storage does). Objects without either are never cached. kube-apiserver keeps encodings
// of watch-cache objects per encoder in the same way (cachingObject), keyed by the object
// instead. Safe for concurrent use.
type encodingCache struct {
	lru *lru.Cache // objectName -> cachedEncoding
}

// objectName is the key of an object in one scope.
type objectName struct{ namespace, name string }

// cachedEncoding is the encoding of one object state. data is never modified.
type cachedEncoding struct {
	uid             types.UID
	resourceVersion string
	data            []byte
}

func newEncodingCache() *encodingCache {
	return &encodingCache{lru: lru.New(encodingCacheSize)}
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
	v, ok := c.lru.Get(key)
	if !ok {
		return nil, false
	}
	e := v.(cachedEncoding)
	if e.uid != uid || e.resourceVersion != rv {
		return nil, false
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
	c.lru.Add(key, cachedEncoding{uid: uid, resourceVersion: rv, data: data})
}
