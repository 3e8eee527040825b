package cacher

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/third_party/forked/golang/btree"
)

// btreeDegree is the degree of the B-trees holding a cache's objects, kube-apiserver's
// watch cache's (16: each copy-on-write path copy is a few hundred bytes).
const btreeDegree = 16

// freshTimeout bounds how long a read waits for the cache to reach the revision it needs,
// as kube-apiserver's blockTimeout (3s); after it the read goes to storage.
var freshTimeout = 3 * time.Second

// entry is one object in the cache: its storage key (relative to the resource's prefix,
// "/<namespace>/<name>" or "/<name>"), the object (with its resourceVersion set) and its
// revision. Its key, revision and size are never modified once in a tree, nor is any object
// or body it holds; what changes is which body it holds (cold.go): the decoded object, or
// only the object's compressed JSON once the cooler found it not read for a pass, decoded
// again by the next read. Every read of the object goes through entry.object (or peek).
type entry struct {
	key  string
	rev  int64
	size int // estimated bytes of the object (sizeOf)
	// body holds the object decoded or cold (never nil once the entry is in a tree);
	// referenced is set by reads and cleared by the cooler's passes.
	body       atomic.Pointer[body]
	referenced atomic.Bool
	freezer    *freezer // nil: the object's type has no generated codec, it stays decoded
}

// newEntryOf returns the entry of obj (decoded, not yet referenced) at key and revision rev.
// What marks it referenced is the change that caches it: a relist's and a change of an
// object already cached do (the object stays decoded for at least a cooling pass, unless
// the list made it cold: freezeListed); a new object's does not, and the cooler's next
// young pass makes it cold unless it was read (cold.go).
func newEntryOf(key string, obj runtime.Object, rev int64, size int, f *freezer) *entry {
	e := &entry{key: key, rev: rev, size: size, freezer: f}
	e.body.Store(&body{obj: obj, hot: f == nil})
	return e
}

// tree is an immutable ordered set of entries by key: a copy-on-write B-tree, so a new
// state is one path copy away from the previous one, which stays readable without locks.
type tree = btree.BTree[*entry]

func newTree() *tree {
	return btree.New[*entry](btreeDegree, func(a, b *entry) bool { return a.key < b.key })
}

// event is one change the cache applied, kept in its history and dispatched to watchers.
type event struct {
	typ watch.EventType // Added, Modified or Deleted; Bookmark for dispatched bookmarks
	key string
	ns  string // the namespace segment of key ("" for cluster-scoped objects)
	// cur is the entry of the new state (Added, Modified) or, for Deleted, of the last
	// state with the delete's resourceVersion; prev is the entry of the state before (nil
	// for Added). The event reads their objects through them (object, previous), so an
	// entry the cooler makes cold is cold in the history too: the history holds no decoded
	// copy of an object the cache keeps cold, and an event replayed from it decodes the
	// object again (entry.object).
	cur, prev *entry
	rev       int64
	size      int   // estimated bytes of cur's and prev's objects, for the history bound
	state     *tree // the cache's objects right after the event (a snapshot)
	// leftObj is prev with the event's resourceVersion, the object of a DELETED event sent
	// to a watcher whose selector prev matched and obj no longer does; made once.
	leftOnce sync.Once
	leftObj  runtime.Object
}

// object returns the event's object: the new state (Added, Modified) or the deleted state
// with the delete's resourceVersion (Deleted), as entry.sent returns it (a cold entry is
// decoded again); nil for a Bookmark.
func (ev *event) object() runtime.Object {
	if ev.cur == nil {
		return nil
	}
	return ev.cur.sent()
}

// previous returns the state before the event, as object does; nil for none (Added).
func (ev *event) previous() runtime.Object {
	if ev.prev == nil {
		return nil
	}
	return ev.prev.sent()
}

// state is what a cache knows: the objects at revision rev, the history of events after
// baseRev with a snapshot after each, and whether it is synced with storage. Only the
// reflector changes it; readers take the read lock only to pick a snapshot. Safe for
// concurrent use.
type state struct {
	mu sync.RWMutex
	// current is the objects at the last event (or list); rev is the revision the cache has
	// seen everything up to (events and progress bookmarks), rev >= the last event's.
	current *tree
	rev     int64
	// base is the objects at baseRev; history holds every event after baseRev.
	base    *tree
	baseRev int64
	history ring
	// maxEvents and maxBytes bound the history (events, estimated bytes of their objects).
	maxEvents, maxBytes int
	// synced is true while the cache follows storage (after a list, until its watch fails);
	// generation counts the lists, so a watcher of an older one can tell it is cut off.
	synced     bool
	generation int64
	// advanced is closed (and replaced) whenever rev grows or synced changes.
	advanced chan struct{}
	// indexes are the field indexes of current, by field.
	indexes map[string]*fieldIndex
}

func newState(maxEvents, maxBytes int) *state {
	return &state{current: newTree(), base: newTree(), maxEvents: maxEvents, maxBytes: maxBytes,
		advanced: make(chan struct{})}
}

// notifyLocked wakes everyone waiting for the state to change. mu must be held for writing.
func (s *state) notifyLocked() {
	close(s.advanced)
	s.advanced = make(chan struct{})
}

// replace makes entries (in any order) the objects at rev, as a list of storage at rev
// returned them, each marked referenced (a decoded one stays decoded for at least a cooling
// pass; the list made the others cold), empties the history and marks the state synced.
func (s *state) replace(entries []*entry, rev int64) {
	t := newTree()
	for _, e := range entries {
		e.referenced.Store(true)
		t.ReplaceOrInsert(e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.current, s.base, s.baseRev, s.rev = t, t, rev, rev
	for field, x := range s.indexes {
		s.indexes[field] = nil
		delete(s.indexes, field)
		s.indexForLocked(field, x.attrs)
	}
	s.history.clear()
	s.synced = true
	s.generation++
	s.notifyLocked()
}

// clear drops every object and event (a stopped cache holds nothing).
func (s *state) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.current, s.base, s.indexes = newTree(), newTree(), nil
	s.history.clear()
	s.synced = false
	s.notifyLocked()
}

// unsync marks the state as no longer following storage (its watch failed).
func (s *state) unsync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.synced {
		s.synced = false
		s.notifyLocked()
	}
}

// apply applies ev (typ, key, ns, cur, rev and size set; cur is the new entry, or the
// deleted state's for Deleted): it sets ev.prev and ev.typ from the entry at ev.key before (a
// put of a key the cache does not hold is Added), takes a snapshot into ev.state, appends ev
// to the history (dropping the oldest events beyond the bounds) and advances rev.
func (s *state) apply(ev *event) {
	// Only the reflector changes current, and apply runs on it: the new tree is made (a
	// clone, unseen by readers until published; cloning current changes none of what its
	// readers read) and the previous entry, which the change itself returns, is found before
	// taking the lock.
	t := s.current.Clone()
	var (
		old   *entry
		found bool
	)
	if ev.typ == watch.Deleted {
		old, found = t.Delete(&entry{key: ev.key})
	} else {
		old, found = t.ReplaceOrInsert(ev.cur)
	}
	if found {
		ev.prev = old
		ev.size += old.size
		if ev.typ != watch.Deleted {
			ev.cur.referenced.Store(true) // a changed object stays decoded for a pass, as a relisted one
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case ev.typ == watch.Deleted:
		s.reindexLocked(ev.key, nil)
		if !found {
			ev.prev = ev.cur // deliver the delete to the watchers it concerns
		}
	case found:
		ev.typ = watch.Modified
		s.reindexLocked(ev.key, ev.cur)
	default:
		ev.typ = watch.Added
		s.reindexLocked(ev.key, ev.cur)
	}
	ev.state = t
	s.current = t
	s.history.push(ev)
	for s.history.len() > 1 && (s.history.len() > s.maxEvents || s.history.bytes > s.maxBytes) {
		oldest := s.history.pop()
		s.base, s.baseRev = oldest.state, oldest.rev
	}
	s.rev = max(s.rev, ev.rev)
	s.notifyLocked()
}

// object returns the object the cache holds at key (its current state), when that is the
// object stored at revision rev.
func (s *state) object(key string, rev int64) (runtime.Object, bool) {
	s.mu.RLock()
	t := s.current
	s.mu.RUnlock()
	e, found := t.Get(&entry{key: key})
	if !found || e.rev != rev {
		return nil, false
	}
	return e.object(), true
}

// progress records that storage has sent every event up to rev.
func (s *state) progress(rev int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rev > s.rev {
		s.rev = rev
		s.notifyLocked()
	}
}

// dropHistory forgets the events up to rev, as if the history window had moved past them
// (tests compact with it, as kube-apiserver's cacher tests do).
func (s *state) dropHistory(rev int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.history.len() > 0 && s.history.at(0).rev <= rev {
		oldest := s.history.pop()
		s.base, s.baseRev = oldest.state, oldest.rev
	}
	if rev > s.baseRev && rev <= s.rev {
		s.baseRev = rev // no event between: base is the state at rev too
	}
}

// view is a consistent look at the state: the objects at rev, and the generation.
type view struct {
	objects    *tree
	rev        int64
	generation int64
}

// errNotSynced means the cache does not follow storage now: the caller reads storage.
type errNotSynced struct{}

func (errNotSynced) Error() string { return "the watch cache is not synced with storage" }

// errStale means the cache did not reach the wanted revision within freshTimeout.
type errStale struct{ want, have int64 }

func (e errStale) Error() string { return "the watch cache did not reach the revision in time" }

// waitFresh waits until the cache has seen revision rev (0: any), then returns its latest
// view; onWait (may be nil) is called when it starts waiting, and the function it returns
// when it stops. Errors: errNotSynced, errStale after freshTimeout, ctx's error, also when
// ctx has ended before the call: a read at resourceVersion "0", which never waits and asks
// storage nothing, is then not served, as kube-apiserver's timeout filter answers a request
// past its deadline 504 whatever its handler did.
func (s *state) waitFresh(ctx context.Context, rev int64, onWait func() (done func())) (view, error) {
	if err := ctx.Err(); err != nil {
		return view{}, err
	}
	var timeout <-chan time.Time
	for {
		s.mu.RLock()
		v, synced, advanced := view{s.current, s.rev, s.generation}, s.synced, s.advanced
		s.mu.RUnlock()
		if !synced {
			return view{}, errNotSynced{}
		}
		if v.rev >= rev {
			return v, nil
		}
		if timeout == nil {
			if onWait != nil {
				defer onWait()()
			}
			t := time.NewTimer(freshTimeout)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-advanced:
		case <-ctx.Done():
			return view{}, ctx.Err()
		case <-timeout:
			return view{}, errStale{want: rev, have: v.rev}
		}
	}
}

// snapshotAt returns the objects at revision rev, which must not be newer than the cache:
// ok is false when rev is before the history (the state there is unknown).
func (s *state) snapshotAt(rev int64) (*tree, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if rev < s.baseRev || rev > s.rev {
		return nil, false
	}
	// The last event at or before rev.
	n := s.history.len()
	i := sort.Search(n, func(i int) bool { return s.history.at(i).rev > rev })
	if i == 0 {
		return s.base, true
	}
	return s.history.at(i - 1).state, true
}

// since returns the events after rev for a watch starting there, the view they lead to, and
// whether the history holds them all (false: rev is before the history, a 410).
func (s *state) since(rev int64) ([]*event, view, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v := view{s.current, s.rev, s.generation}
	if rev < s.baseRev {
		return nil, v, false
	}
	n := s.history.len()
	i := sort.Search(n, func(i int) bool { return s.history.at(i).rev > rev })
	out := make([]*event, 0, n-i)
	for ; i < n; i++ {
		out = append(out, s.history.at(i))
	}
	return out, v, true
}

// revision returns the revision the cache has seen everything up to.
func (s *state) revision() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rev
}

// oldest returns baseRev, the oldest revision a watch can start from.
func (s *state) oldest() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.baseRev
}

// ring is a FIFO of events with their estimated size. Not safe for concurrent use.
type ring struct {
	buf   []*event
	start int
	n     int
	bytes int
}

func (r *ring) len() int { return r.n }

// at returns the i-th oldest event.
func (r *ring) at(i int) *event { return r.buf[(r.start+i)%len(r.buf)] }

func (r *ring) push(ev *event) {
	if r.n == len(r.buf) {
		grown := make([]*event, max(16, 2*len(r.buf)))
		for i := range r.n {
			grown[i] = r.at(i)
		}
		r.buf, r.start = grown, 0
	}
	r.buf[(r.start+r.n)%len(r.buf)] = ev
	r.n++
	r.bytes += ev.size
}

func (r *ring) pop() *event {
	ev := r.buf[r.start]
	r.buf[r.start] = nil
	r.start = (r.start + 1) % len(r.buf)
	r.n--
	r.bytes -= ev.size
	return ev
}

func (r *ring) clear() { *r = ring{} }
