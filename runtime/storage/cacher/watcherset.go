package cacher

import (
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// watcherSet holds a cache's watchers by the namespace they watch ("" for all), so an event
// reaches only the watchers of its namespace and those of every namespace, as
// kube-apiserver's indexed watchers. Safe for concurrent use.
type watcherSet struct {
	mu   sync.RWMutex
	byNS map[string]map[*cacheWatcher]struct{}
	// budget bounds how long dispatch waits for full watchers; blocked is dispatch's
	// scratch list of them (only the reflector dispatches).
	budget  *timeBudget
	blocked []*cacheWatcher
}

func newWatcherSet() *watcherSet {
	return &watcherSet{byNS: map[string]map[*cacheWatcher]struct{}{}, budget: newTimeBudget()}
}

// addLocked adds w; the caller holds mu for writing.
func (s *watcherSet) addLocked(w *cacheWatcher) {
	set := s.byNS[w.ns]
	if set == nil {
		set = map[*cacheWatcher]struct{}{}
		s.byNS[w.ns] = set
	}
	set[w] = struct{}{}
}

// remove removes w (if present).
func (s *watcherSet) remove(w *cacheWatcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if set := s.byNS[w.ns]; set != nil {
		delete(set, w)
		if len(set) == 0 {
			delete(s.byNS, w.ns)
		}
	}
}

// dispatch pushes ev to the watchers it may concern, as kube-apiserver's
// cacher.dispatchEvent: first without blocking, under the read lock; then, with the lock
// released, to those whose buffer was full, waiting for them together at most the budget
// (budget.go) the reflector has left, after which those still full are cut off.
func (s *watcherSet) dispatch(ev *event) {
	s.mu.RLock()
	blocked := s.blocked[:0]
	for w := range s.byNS[""] {
		if !w.push(ev) {
			blocked = append(blocked, w)
		}
	}
	if ev.ns != "" {
		for w := range s.byNS[ev.ns] {
			if !w.push(ev) {
				blocked = append(blocked, w)
			}
		}
	}
	s.mu.RUnlock()
	if len(blocked) == 0 {
		return
	}
	start := time.Now()
	budget := s.budget.take()
	timer := time.NewTimer(budget)
	expired := timer.C
	for _, w := range blocked {
		if !w.pushWait(ev, expired) {
			expired = nil // the budget is spent: the next full watchers are cut off at once
		}
	}
	timer.Stop()
	s.budget.giveBack(budget - time.Since(start))
	clear(blocked)
	s.blocked = blocked[:0] // only the reflector dispatches: reuse the slice
}

// bookmark pushes a BOOKMARK at rev to every watcher whose bookmark is due at now.
func (s *watcherSet) bookmark(now time.Time, rev int64) {
	if rev == 0 {
		return
	}
	ev := &event{typ: watch.Bookmark, rev: rev}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, set := range s.byNS {
		for w := range set {
			if w.bookmarks && !now.Before(w.nextBookmark) {
				w.pushBookmark(ev)
				w.scheduleBookmark(now)
			}
		}
	}
}

// closeAll ends every watcher (their consumers resume from their last resourceVersion).
func (s *watcherSet) closeAll() {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, set := range s.byNS {
		for w := range set {
			w.close()
		}
	}
}

// count returns the number of watchers.
func (s *watcherSet) count() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, set := range s.byNS {
		n += len(set)
	}
	return n
}

// namespaceOf returns the namespace segment of an object key ("/ns/name" -> "ns"; "/name"
// -> "") or of a watch key ("/ns/" or "/ns/name" -> "ns"; "/" or "/name" -> "").
func namespaceOf(key string) string {
	rest := strings.TrimPrefix(key, "/")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i]
	}
	return ""
}
