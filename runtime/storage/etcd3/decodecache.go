package etcd3

import (
	"bytes"
	"hash/maphash"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/lru"

	"github.com/apigen-dev/apigen/runtime/storage"
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

// get returns a copy of the object decoded from data (storage.CopyFor: shallow when shared
// and its type allows, so the caller must not change what it points to), or nil when it is
// not cached (a nil cache caches nothing).
func (c *decodeCache) get(data []byte, shared bool) runtime.Object {
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
	return storage.CopyFor(entry.obj, shared)
}

// add remembers a copy of obj as what data decodes to (a nil cache does nothing).
func (c *decodeCache) add(data []byte, obj runtime.Object) {
	if c == nil {
		return
	}
	c.lru.Add(maphash.Bytes(c.seed, data), cachedObject{data: bytes.Clone(data), obj: obj.DeepCopyObject()})
}
