package etcd3

import (
	"bytes"
	"hash/maphash"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/lru"
)

// decodeCacheSize is how many decoded objects each resource's store keeps. At ~1 KiB stored
// objects that is a few MiB per resource.
const decodeCacheSize = 4096

// decodeCache remembers decoded objects by the exact bytes they were decoded from, so a value
// read again (a get, a list page, the read before an update, a watch event) costs a deep copy
// instead of a JSON decode, defaulting and conversion. It is exact by construction: the same
// bytes through the same codec give the same object, and the caller sets resourceVersion
// afterwards. Safe for concurrent use.
type decodeCache struct {
	seed maphash.Seed
	lru  *lru.Cache
}

// cachedObject is one entry: the stored bytes (to rule out hash collisions) and the object
// decoded from them, never handed out itself.
type cachedObject struct {
	data []byte
	obj  runtime.Object
}

func newDecodeCache(size int) *decodeCache {
	return &decodeCache{seed: maphash.MakeSeed(), lru: lru.New(size)}
}

// get returns a deep copy of the object decoded from data, or nil when it is not cached
// (a nil cache caches nothing).
func (c *decodeCache) get(data []byte) runtime.Object {
	if c == nil {
		return nil
	}
	v, ok := c.lru.Get(maphash.Bytes(c.seed, data))
	if !ok {
		return nil
	}
	entry := v.(cachedObject)
	if !bytes.Equal(entry.data, data) {
		return nil
	}
	return entry.obj.DeepCopyObject()
}

// getShared returns the object decoded from data, or nil when it is not cached: a shallow
// copy that shares the cached object's maps, slices and pointers when its type is
// shareable, else a deep copy. The caller must not change what the copy points to.
func (c *decodeCache) getShared(data []byte) runtime.Object {
	if c == nil {
		return nil
	}
	v, ok := c.lru.Get(maphash.Bytes(c.seed, data))
	if !ok {
		return nil
	}
	entry := v.(cachedObject)
	if !bytes.Equal(entry.data, data) {
		return nil
	}
	if shareable(entry.obj) {
		return shallowCopy(entry.obj)
	}
	return entry.obj.DeepCopyObject()
}

// add remembers a copy of obj as what data decodes to (a nil cache does nothing).
func (c *decodeCache) add(data []byte, obj runtime.Object) {
	if c == nil {
		return
	}
	c.lru.Add(maphash.Bytes(c.seed, data), cachedObject{data: bytes.Clone(data), obj: obj.DeepCopyObject()})
}
