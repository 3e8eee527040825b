package endpoints

import (
	"bytes"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// frameCacheSize is how many watch frames a scope keeps: the events of the last few seconds
// of a busy resource, each shared by every watcher of the scope.
const frameCacheSize = 256

// frameCache remembers the plain-JSON watch frames (a metav1.WatchEvent and a newline) a
// scope wrote, by the event's type and object state (namespace, name, uid and
// resourceVersion), so an event is serialized once however many watchers get it, as
// kube-apiserver's cachingObject serializes a watch-cache event once per encoding. The type
// is part of the key: a DELETED event of an object leaving a watcher's selection carries
// the previous state at the new resourceVersion, which another watcher gets as MODIFIED.
// The first watcher to ask builds a frame; the others wait for it. A thousand watchers
// look an event up at once: lookups take no lock (a sync.Map; a mutex here was the fan-out's
// most contended lock, each lookup queueing behind the others), only the one that adds an
// event's frame does, to put it in the ring. The ring is made on first use: most scopes (every resource,
// version and subresource a server installs) are never watched. Safe for concurrent use.
type frameCache struct {
	entries sync.Map // frameKey -> *frame

	mu    sync.Mutex // guards the ring
	order []frameKey // ring of frameCacheSize, oldest first from next; nil until first use
	next  int
}

// frameKey names one event: its type and object state.
type frameKey struct {
	typ             watch.EventType
	name            objectName
	uid             types.UID
	resourceVersion string
}

// frame is one watch frame, built once.
type frame struct {
	once sync.Once
	data []byte
	err  error
}

// newFrameCache returns an empty frameCache.
func newFrameCache() *frameCache {
	return &frameCache{}
}

// get returns the frame of ev, building it with build the first time. ok is false for
// events it does not cache (bookmarks, errors, objects without uid or resourceVersion);
// the caller builds those itself.
func (c *frameCache) get(ev watch.Event, build func() ([]byte, error)) (data []byte, ok bool, err error) {
	if ev.Type == watch.Bookmark || ev.Type == watch.Error {
		return nil, false, nil
	}
	name, uid, rv, ok := stateOf(ev.Object)
	if !ok {
		return nil, false, nil
	}
	key := frameKey{typ: ev.Type, name: name, uid: uid, resourceVersion: rv}
	v, found := c.entries.Load(key)
	if !found {
		// The watchers of the event all miss at once: one stores the frame, and only it
		// takes the lock, to put the key in the ring.
		if v, found = c.entries.LoadOrStore(key, &frame{}); !found {
			c.mu.Lock()
			if c.order == nil {
				c.order = make([]frameKey, frameCacheSize)
			}
			c.entries.Delete(c.order[c.next])
			c.order[c.next] = key
			c.next = (c.next + 1) % frameCacheSize
			c.mu.Unlock()
		}
	}
	f := v.(*frame)
	f.once.Do(func() { f.data, f.err = build() })
	return f.data, true, f.err
}

// watchEventJSON returns the frame of a plain-JSON watch event: {"type":typ,"object":object}
// and a newline, the bytes encoding/json writes for a metav1.WatchEvent holding object
// (compact JSON) as its RawExtension, plus the newline.
func watchEventJSON(typ watch.EventType, object []byte) []byte {
	object = bytes.TrimSpace(object)
	out := make([]byte, 0, len(object)+len(typ)+24)
	out = append(out, `{"type":"`...)
	out = append(out, typ...)
	out = append(out, `","object":`...)
	out = append(out, object...)
	return append(out, "}\n"...)
}

// objectJSON returns obj's JSON in the scope's version, as a GET writes it, from the
// scope's encodingCache when it has it; an ADDED or MODIFIED event's object is the stored
// state a GET may return, so its encoding is added to the cache (a DELETED one's is not: a
// selector's DELETED carries the previous state at a newer resourceVersion).
func (s *scope) objectJSON(obj runtime.Object, cacheable bool) ([]byte, error) {
	if data, ok := s.encodings.get(obj); ok && cacheable {
		return data, nil
	}
	data, err := s.encode(obj, false)
	if err == nil && cacheable {
		s.encodings.add(obj, data)
	}
	return data, err
}
