package storage

import "k8s.io/apimachinery/pkg/runtime"

// DecodedObjects is what a watch cache offers the storage it caches: the objects it holds,
// so that a value the storage reads again (a quorum get, the state an update starts from)
// need not be decoded, nor kept decoded a second time in a cache of the storage's own. As
// kube-apiserver's cacher hands its object to GuaranteedUpdate (cachedExistingObject).
type DecodedObjects interface {
	// DecodedObject returns the object the cache holds at key (relative to the resource:
	// "/<ns>/<name>" or "/<name>") when it is the value stored there at revision rev (the
	// key's ModRevision), else false. The object is shared with the cache and its readers:
	// the caller must not change it, nor anything it points to; it copies it first.
	DecodedObject(key string, rev int64) (runtime.Object, bool)
}

// DecodedObjectsUser is implemented by a storage.Interface that can take decoded objects
// from a watch cache (etcd3's store). UseDecodedObjects makes it look the values it reads
// up in objects before decoding them, and stop keeping decoded objects of its own; it is
// called once, before the storage serves anyone else. A key's value at one revision is one
// value, so an object found is exactly what a decode would give, provided each object is
// stored under its own namespace and name (as everything a Store writes is).
type DecodedObjectsUser interface {
	UseDecodedObjects(objects DecodedObjects)
}
