package etcd3

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// use says what a caller does with a decoded object, and so what it may share.
type use int

const (
	// useOwn: the caller may change the object. A value decoded is added to the decode
	// cache, for the next read of the same bytes.
	useOwn use = iota
	// useOnce is useOwn for bytes unlikely to be read again soon (a write's start state
	// the store wrote itself), or whose object the caller keeps (a watch cache's reads):
	// a value decoded is not cached, so it is not held twice.
	useOnce
	// useShared: the caller only reads the object (request.ReadOnlyResults). A known
	// object comes as a shallow copy sharing its maps and slices (storage.ShallowCopy).
	useShared
)

// UseDecodedObjects implements storage.DecodedObjectsUser: from now on the store takes
// objects it would decode from objects when they hold them, keeps no decode cache, and
// remembers each key's last state by revision and digest, with its bytes only for the most
// recent writes (writes start from the watch cache's object at that revision): the watch
// cache already holds every object of the resource once.
func (s *store) UseDecodedObjects(objects storage.DecodedObjects) {
	s.objects, s.decoded = objects, nil
	s.states.useDigests()
}

// decodeFor decodes data, the value of etcd key k at ModRevision modRev, for the request
// of ctx: shared when ctx is marked by request.WithReadOnlyResults; for a watch cache's own
// reads (storage.InternalWatch), which keep what they read, neither cached nor looked up in
// the watch cache (it is what they fill). The object gets resourceVersion rev (modRev, or
// the later revision a watch reports a previous state at).
func (s *store) decodeFor(ctx context.Context, k string, data []byte, modRev, rev int64) (runtime.Object, error) {
	switch {
	case storage.InternalWatch(ctx):
		return s.decodeObject("", data, 0, rev, useOnce)
	case request.ReadOnlyResults(ctx):
		return s.decodeObject(k, data, modRev, rev, useShared)
	}
	return s.decodeObject(k, data, modRev, rev, useOwn)
}

// errNoBytes is why a value known only by its digest, whose object the watch cache does not
// hold, cannot be decoded.
var errNoBytes = errors.New("no stored bytes to decode")

// decodeObject returns the object in data, the value of etcd key k at ModRevision modRev
// (k "" and modRev 0 for bytes not read from etcd), with resourceVersion rev, for a caller
// that uses it as u says: a copy of an object decoded before (the watch cache's, else the
// decode cache's), or a new decode. Errors: Internal, wrapping the codec's error, for bytes
// that do not decode, or errNoBytes when data is nil and the object is not known.
func (s *store) decodeObject(k string, data []byte, modRev, rev int64, u use) (runtime.Object, error) {
	obj := s.known(k, data, modRev, u == useShared)
	if obj == nil {
		err := errNoBytes
		if data != nil {
			obj, _, err = s.codec.Decode(data, nil, s.newFunc())
		}
		if err != nil {
			return nil, &storage.StatusError{Code: storage.ErrCodeInternal, Message: fmt.Sprintf("cannot decode stored %s", s.gr), Err: err}
		}
		if u != useOnce {
			s.decoded.add(data, obj)
		}
	}
	if err := setResourceVersion(obj, rev); err != nil {
		return nil, err
	}
	return obj, nil
}

// known returns a copy of an object already decoded from data, the value of etcd key k at
// ModRevision modRev, or nil: with a watch cache (UseDecodedObjects), the object it holds at
// k when it holds that revision; otherwise the decode cache's. The copy is
// storage.CopyFor's: shallow when shared and the object's type allows it.
func (s *store) known(k string, data []byte, modRev int64, shared bool) runtime.Object {
	if s.objects == nil {
		return s.decoded.get(data, shared)
	}
	if modRev == 0 {
		return nil
	}
	obj, ok := s.objects.DecodedObject(strings.TrimPrefix(k, s.prefix), modRev)
	if !ok {
		return nil
	}
	return storage.CopyFor(obj, shared)
}

// decode puts into out (replacing all of out) the object in data, the value of etcd key k
// at ModRevision modRev, with resourceVersion rev.
func (s *store) decode(k string, data []byte, modRev int64, out runtime.Object, rev int64) error {
	obj, err := s.decodeObject(k, data, modRev, rev, useOwn)
	if err != nil {
		return err
	}
	return setInto(out, obj)
}
