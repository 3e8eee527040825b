// Package memory is a storage.Interface in the server's memory: objects are kept encoded with
// the resource's codec, with a history of their changes for lists at a revision and watches,
// as etcd keeps them, and lost when the process ends. It is what a kind marked
// +apigen:storage=interface is served from until its own storage is written (the stub
// `apigen create api --storage=interface` scaffolds returns it), and a reference a backend
// author can read: it passes runtime/storage/storagetest.
package memory

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// DefaultHistory is how many changes a Store keeps before it compacts the older half: a
// watch or paged list from before them is 410 Gone (Expired), as after etcd's compaction.
const DefaultHistory = 10000

// entry is one stored object: its revision and encoding.
type entry struct {
	rev  int64
	data []byte
}

// change is one write of the history.
type change struct {
	rev       int64
	key, typ  string // typ: "ADDED", "MODIFIED", "DELETED"
	data      []byte // the new state; a delete's last state
	prev      []byte // a modification's previous state
	prevAlive bool
}

// Store is the in-memory storage.Interface. Safe for concurrent use.
type Store struct {
	codec    runtime.Codec
	newFunc  func() runtime.Object
	resource schema.GroupResource
	history  int

	mu        sync.Mutex
	rev       int64
	compacted int64
	objs      map[string]entry
	log       []change
	written   chan struct{} // closed and replaced after each write
}

var _ storage.Interface = (*Store)(nil)

// New returns an empty Store of resource (named in errors), encoding objects with codec and
// decoding them into newFunc's; it keeps DefaultHistory changes.
func New(codec runtime.Codec, newFunc func() runtime.Object, resource schema.GroupResource) *Store {
	return &Store{codec: codec, newFunc: newFunc, resource: resource, history: DefaultHistory, rev: 1,
		objs: map[string]entry{}, written: make(chan struct{})}
}

// cleanKey checks a key as etcd3's store: no "." or ".." segment. Errors: InvalidObj.
func (s *Store) cleanKey(key string) (string, error) {
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return "", storage.NewInvalidObjError(key, fmt.Sprintf("invalid key %q for %s: it may not contain %q", key, s.resource, seg))
		}
	}
	cleaned := path.Clean("/" + key)
	if strings.HasSuffix(key, "/") && cleaned != "/" {
		cleaned += "/"
	}
	return cleaned, nil
}

// encode returns obj's stored encoding, without its resourceVersion. Errors: Internal.
func (s *Store) encode(obj runtime.Object) ([]byte, error) {
	obj = obj.DeepCopyObject()
	if err := setRV(obj, 0); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := s.codec.Encode(obj, &buf); err != nil {
		return nil, storage.NewInternalError(fmt.Sprintf("cannot encode %T for %s: %v", obj, s.resource, err))
	}
	return buf.Bytes(), nil
}

// decodeInto decodes data into out at rev. Errors: Internal.
func (s *Store) decodeInto(data []byte, rev int64, out runtime.Object) error {
	got, _, err := s.codec.Decode(data, nil, out)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot decode a stored %s: %v", s.resource, err))
	}
	if got != out {
		return storage.NewInternalError(fmt.Sprintf("decoding a stored %s gave a %T, not into %T", s.resource, got, out))
	}
	return setRV(out, rev)
}

// decode decodes data into a new object at rev.
func (s *Store) decode(data []byte, rev int64) (runtime.Object, error) {
	obj := s.newFunc()
	return obj, s.decodeInto(data, rev, obj)
}

// setRV sets obj's resourceVersion (0: none).
func setRV(obj runtime.Object, rev int64) error {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot set the resourceVersion of %T: %v", obj, err))
	}
	v := ""
	if rev != 0 {
		v = strconv.FormatInt(rev, 10)
	}
	acc.SetResourceVersion(v)
	return nil
}

// commit records a change at the next revision; s.mu is held. It wakes the watches and
// compacts the older half of the history once it holds twice s.history changes.
func (s *Store) commit(c change) int64 {
	s.rev++
	c.rev = s.rev
	if c.typ == "DELETED" {
		delete(s.objs, c.key)
	} else {
		s.objs[c.key] = entry{rev: c.rev, data: c.data}
	}
	s.log = append(s.log, c)
	close(s.written)
	s.written = make(chan struct{})
	if len(s.log) >= 2*s.history {
		s.compactLocked(s.log[len(s.log)-s.history].rev)
	}
	return c.rev
}

// Compact discards the history up to the current revision: reads and watches from an older
// one are 410 Gone (Expired). It returns that revision.
func (s *Store) Compact() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compactLocked(s.rev)
	return s.rev
}

// compactLocked drops the changes at or before rev but each live key's last; s.mu is held.
func (s *Store) compactLocked(rev int64) {
	if rev <= s.compacted {
		return
	}
	s.compacted = rev
	last := map[string]int{}
	for i, c := range s.log {
		if c.rev <= rev {
			last[c.key] = i
		}
	}
	kept := s.log[:0:0]
	for i, c := range s.log {
		if c.rev > rev || (last[c.key] == i && c.typ != "DELETED") {
			kept = append(kept, c)
		}
	}
	s.log = kept
}

// Create implements storage.Interface.
func (s *Store) Create(_ context.Context, key string, obj, out runtime.Object) error {
	key, err := s.cleanKey(key)
	if err != nil {
		return err
	}
	if acc, err := meta.Accessor(obj); err != nil || acc.GetResourceVersion() != "" {
		return storage.NewInvalidObjError(key, "resourceVersion should not be set on objects to be created")
	}
	data, err := s.encode(obj)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if e, ok := s.objs[key]; ok {
		s.mu.Unlock()
		return storage.NewKeyExistsError(key, e.rev)
	}
	rev := s.commit(change{key: key, typ: "ADDED", data: data})
	s.mu.Unlock()
	return s.decodeInto(data, rev, out)
}

// read returns the entry at key.
func (s *Store) read(key string) (entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.objs[key]
	return e, ok
}

// Get implements storage.Interface: always the latest state.
func (s *Store) Get(_ context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	key, err := s.cleanKey(key)
	if err != nil {
		return err
	}
	e, ok := s.read(key)
	if !ok {
		if opts.IgnoreNotFound {
			if err := runtime.SetZeroValue(out); err != nil {
				return storage.NewInternalError(fmt.Sprintf("cannot reset %T: %v", out, err))
			}
			return nil
		}
		return storage.NewKeyNotFoundError(key, 0)
	}
	return s.decodeInto(e.data, e.rev, out)
}

// GuaranteedUpdate implements storage.Interface: tryUpdate runs without the lock, on the
// state read; the result is written only if the key's revision has not moved, else retried.
func (s *Store) GuaranteedUpdate(_ context.Context, key string, dest runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	key, err := s.cleanKey(key)
	if err != nil {
		return err
	}
	for {
		cur, found := s.read(key)
		var obj runtime.Object
		switch {
		case found:
			if obj, err = s.decode(cur.data, cur.rev); err != nil {
				return err
			}
		case ignoreNotFound:
			obj = s.newFunc()
		default:
			return storage.NewKeyNotFoundError(key, 0)
		}
		if err := preconditions.Check(key, obj); err != nil {
			return err
		}
		updated, err := tryUpdate(obj.DeepCopyObject())
		if err != nil {
			return err
		}
		data, err := s.encode(updated)
		if err != nil {
			return err
		}
		if found {
			if old, err := s.encode(obj); err == nil && bytes.Equal(old, data) {
				return s.decodeInto(cur.data, cur.rev, dest)
			}
		}
		s.mu.Lock()
		now, exists := s.objs[key]
		if exists != found || (found && now.rev != cur.rev) {
			s.mu.Unlock()
			continue
		}
		c := change{key: key, typ: "ADDED", data: data}
		if found {
			c.typ, c.prev, c.prevAlive = "MODIFIED", cur.data, true
		}
		rev := s.commit(c)
		s.mu.Unlock()
		return s.decodeInto(data, rev, dest)
	}
}

// Delete implements storage.Interface.
func (s *Store) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc) error {
	key, err := s.cleanKey(key)
	if err != nil {
		return err
	}
	for {
		cur, found := s.read(key)
		if !found {
			return storage.NewKeyNotFoundError(key, 0)
		}
		obj, err := s.decode(cur.data, cur.rev)
		if err != nil {
			return err
		}
		if err := preconditions.Check(key, obj); err != nil {
			return err
		}
		if validateDeletion != nil {
			if err := validateDeletion(ctx, obj); err != nil {
				return err
			}
		}
		s.mu.Lock()
		if now, ok := s.objs[key]; !ok || now.rev != cur.rev {
			s.mu.Unlock()
			continue
		}
		rev := s.commit(change{key: key, typ: "DELETED", data: cur.data})
		s.mu.Unlock()
		return s.decodeInto(cur.data, rev, out)
	}
}

// stateAt returns the keys from from (inclusive) to end (exclusive), sorted, and their
// entries at rev (the current state when rev is s.rev); s.mu is held.
func (s *Store) stateAt(from, end string, rev int64) ([]string, map[string]entry) {
	state := s.objs
	if rev != s.rev {
		state = map[string]entry{}
		for _, c := range s.log {
			if c.rev > rev {
				break
			}
			if c.typ == "DELETED" {
				delete(state, c.key)
			} else {
				state[c.key] = entry{rev: c.rev, data: c.data}
			}
		}
	}
	var keys []string
	for k := range state {
		if k >= from && k < end {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, state
}
