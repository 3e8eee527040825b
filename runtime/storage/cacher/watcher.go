package cacher

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// resultBuffer is how many events a live watcher may fall behind the cache before the
// reflector waits for it (at most its dispatch budget, budget.go) and then cuts it off (its
// result channel closed once the consumer has read the events buffered, and its consumer
// terminated through request.TerminateWatch; the client resumes from its last
// resourceVersion), as kube-apiserver's cacheWatcher input channel, which kube sizes to
// about a second of events, 10 to 100 for a watch without an index (10 to 1000 with one).
// A slot is a watch.Event of 32 bytes, allocated up front: 64 slots hold 2 KB per watcher.
const resultBuffer = 64

// inputBuffer is how many live events a watcher may fall behind while it still sends its
// initial events (a list of many objects takes a while), with the same wait and cut-off. A
// slot is a pointer; the queue is let go once the watcher is live.
const inputBuffer = 256

// bookmarkFrequency is how often a watcher that asked for bookmarks gets one, as
// kube-apiserver's watch cache sends them about once a minute (and 2s before the watch's
// deadline).
var bookmarkFrequency = time.Minute

// cacheWatcher is one watch served from the cache; it implements watch.Interface. The
// watcher's goroutine first sends its initial events while the reflector queues live ones
// into input; once it has sent those too, the watcher is live: the reflector converts each
// event for the watcher's key and predicate and puts it straight into result, so a live
// event takes no goroutine hand-off before the consumer (kube-apiserver's cacheWatcher
// hands every event to a goroutine of its own). Queuing and delivering block the reflector
// only for a watcher whose buffer is full, and only within the dispatch budget shared by
// all (budget.go); a watcher still full then is cut off. The goroutine then returns: the
// end of a live watch (Stop, a cut-off, the cache closing, or its context ending, through
// context.AfterFunc) closes result and unregisters the watcher, so that a server holding
// 10,000 watches keeps no 10,000 goroutines and stacks only waiting for their end.
type cacheWatcher struct {
	c         *Cacher
	ctx       context.Context
	key       string // cleaned; a recursive key ends with "/"
	recursive bool
	ns        string // the watcherSet bucket: the namespace of key, or "" for every namespace
	pred      storage.SelectionPredicate
	shared    bool // the consumer only reads the objects: hand out shallow copies
	// sharedObjects: the consumer never writes to the objects (request.SharedWatchObjects):
	// hand out the cache's own, one per event for every such watcher.
	sharedObjects bool
	bookmarks     bool
	deadline      time.Time // the ctx deadline (zero: none)
	// nextBookmark is when the next BOOKMARK is due; only the reflector touches it after
	// registration.
	nextBookmark time.Time

	// Set at registration, read by run: initial objects to send as ADDED (nil: none), or
	// initial history events; after is the revision up to which run sent everything, so
	// input events at or before it are skipped; endBookmark > 0 sends the
	// initial-events-end BOOKMARK at it.
	initialObjects *tree
	initialEvents  []*event
	after          int64
	endBookmark    int64

	input  chan *event      // live events queued while run sends the initial ones; nil once live
	result chan watch.Event // resultBuffer events
	done   chan struct{}    // closed by Stop, a cut-off, closeAll or the end of ctx
	once   sync.Once
	// detached is set when run has returned with the watcher live: from then on whoever
	// closes done ends the watch (end). stopAfter, set just before, unregisters the
	// context.AfterFunc that ends the watch when ctx ends.
	detached  atomic.Bool
	stopAfter func() bool
	endOnce   sync.Once
	exited    chan struct{} // closed when the watch has ended (end): result closed, unregistered

	// mu orders the reflector's deliveries with the switch to live and with the end of the
	// watch (result is closed under it).
	mu sync.Mutex
	// live is set once run has sent the initial events and drained input: from then on
	// the reflector delivers into result. ended is set when no more events may be delivered
	// (the watch is cut off or over); result is closed by run after it is set.
	live, ended bool
}

// ResultChan implements watch.Interface.
func (w *cacheWatcher) ResultChan() <-chan watch.Event { return w.result }

// Stop implements watch.Interface: it ends the watch and waits until it has ended; the
// result channel is closed. It may be called more than once, from any goroutine.
func (w *cacheWatcher) Stop() {
	w.closeAndEnd()
	<-w.exited
}

// close ends the watch without waiting: done closes, and a watcher whose goroutine has
// returned (detached) is ended by a goroutine of its own, since close is called with the
// watcher's or the watcher set's lock held.
func (w *cacheWatcher) close() {
	if w.closeDone() && w.detached.Load() {
		go w.end()
	}
}

// closeAndEnd ends the watch with no lock held (Stop, the end of ctx): done closes, and a
// detached watcher is ended by the caller.
func (w *cacheWatcher) closeAndEnd() {
	w.closeDone()
	if w.detached.Load() {
		w.end()
	}
}

// closeDone closes done once; it reports whether this call closed it.
func (w *cacheWatcher) closeDone() bool {
	closed := false
	w.once.Do(func() {
		close(w.done)
		closed = true
	})
	return closed
}

// end finishes the watch once: done and result are closed (under mu, so no delivery
// follows), the watcher leaves the set and its context's AfterFunc, and exited closes.
func (w *cacheWatcher) end() {
	w.endOnce.Do(func() {
		if w.stopAfter != nil {
			w.stopAfter()
		}
		w.closeDone()
		w.mu.Lock()
		w.ended = true
		close(w.result)
		w.mu.Unlock()
		w.c.watchers.remove(w)
		if m := w.c.metrics; m != nil {
			m.AddWatchers(w.c.gvk, -1)
		}
		close(w.exited)
	})
}

// push delivers ev to the watcher without blocking: into result, converted, when the
// watcher is live, else into input for run. It reports false when the watcher's buffer is
// full and ev was not delivered: the dispatcher then waits for it with pushWait.
func (w *cacheWatcher) push(ev *event) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return true
	}
	if !w.live {
		select {
		case w.input <- ev:
			return true
		default:
			return false
		}
	}
	if ev.rev <= w.after {
		return true
	}
	out, ok := w.convert(ev)
	if !ok {
		return true
	}
	select {
	case w.result <- out:
		return true
	default:
		return false
	}
}

// pushWait delivers ev to a watcher whose buffer was full, waiting until expired fires (a
// nil expired: not at all), as kube-apiserver's cacheWatcher.add with the dispatch timer;
// a watcher still full then is cut off. It reports whether the wait ended before expired
// fired, so the caller stops waiting for the next watchers once it has. No lock but the
// watcher's own is held while it waits, and Stop or a cut-off (which close done before
// taking it) end the wait at once.
func (w *cacheWatcher) pushWait(ev *event, expired <-chan time.Time) bool {
	if w.waitInput(ev, expired) {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.ended:
		return true
	case !w.live: // waitInput's wait expired
		w.cutOffLocked()
		return false
	case ev.rev <= w.after:
		return true
	}
	out, ok := w.convert(ev)
	if !ok {
		return true
	}
	select {
	case w.result <- out:
		return true
	default:
	}
	if expired != nil {
		select {
		case w.result <- out:
			return true
		case <-w.done:
			return true
		case <-expired:
		}
	}
	w.cutOffLocked()
	return false
}

// waitInput queues ev into input for a watcher still sending its initial events, waiting
// for room until expired fires; it reports true when ev was queued or is no longer to be
// queued (the watch ended or went live: pushWait then delivers it to result). mu cannot be
// held while waiting, since run drains input under it, so it polls.
func (w *cacheWatcher) waitInput(ev *event, expired <-chan time.Time) bool {
	var poll *time.Ticker
	for {
		w.mu.Lock()
		if w.ended || w.live {
			w.mu.Unlock()
			return w.ended
		}
		select {
		case w.input <- ev:
			w.mu.Unlock()
			return true
		default:
		}
		w.mu.Unlock()
		if expired == nil {
			return false
		}
		if poll == nil {
			poll = time.NewTicker(time.Millisecond)
			defer poll.Stop()
		}
		select {
		case <-poll.C:
		case <-w.done:
		case <-expired:
			return false
		}
	}
}

// pushBookmark delivers a bookmark without blocking; when the buffer is full it is skipped
// (the events before it are still to come).
func (w *cacheWatcher) pushBookmark(ev *event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.ended:
	case !w.live:
		select {
		case w.input <- ev:
		default:
		}
	case ev.rev >= w.after:
		select {
		case w.result <- w.bookmark(ev.rev, false):
		default:
		}
	}
}

// cutOffLocked ends a watcher that fell behind: nothing more is delivered, run closes
// result, and the consumer is told through request.TerminateWatch (the watch handler ends
// its response even when it is blocked writing to a client that does not read), as
// kube-apiserver's cacher terminates an unresponsive watcher. mu must be held.
func (w *cacheWatcher) cutOffLocked() {
	w.ended = true
	w.close()
	request.TerminateWatch(w.ctx)
}

// scheduleBookmark sets nextBookmark after now: bookmarkFrequency later, or 2s before the
// deadline when that comes first (and is still ahead).
func (w *cacheWatcher) scheduleBookmark(now time.Time) {
	next := now.Add(bookmarkFrequency)
	if !w.deadline.IsZero() {
		if pre := w.deadline.Add(-2 * time.Second); pre.Before(next) && pre.After(now) {
			next = pre
		}
	}
	w.nextBookmark = next
}

// run sends the initial events and those queued meanwhile and makes the watcher live; it
// returns then, leaving the end of the watch to close (detached), or ends the watch itself
// when it did not go live.
func (w *cacheWatcher) run() {
	if m := w.c.metrics; m != nil {
		m.AddWatchers(w.c.gvk, 1)
	}
	if !w.sendInitial() || !w.goLive() {
		w.end()
		return
	}
	w.stopAfter = context.AfterFunc(w.ctx, w.closeAndEnd)
	w.detached.Store(true)
	// A close before detached was set saw no detached watcher and left the end to run.
	select {
	case <-w.done:
		w.end()
	default:
	}
}

// goLive sends the events queued in input until it is empty, then marks the watcher live
// (under mu, so that no event is queued meanwhile); it reports whether the watch goes on.
func (w *cacheWatcher) goLive() bool {
	for {
		w.mu.Lock()
		select {
		case ev := <-w.input:
			w.mu.Unlock()
			if !w.sendQueued(ev) {
				return false
			}
		default:
			w.live = !w.ended
			if w.live {
				w.input = nil // no longer used: let its buffer go
			}
			w.mu.Unlock()
			return w.live
		}
	}
}

// sendQueued sends a queued event (a bookmark or a cache event) unless the watcher already
// had it or it does not concern the watcher; it reports whether the watch goes on.
func (w *cacheWatcher) sendQueued(ev *event) bool {
	if ev.typ == watch.Bookmark {
		return ev.rev < w.after || w.send(w.bookmark(ev.rev, false))
	}
	if ev.rev <= w.after {
		return true
	}
	if out, ok := w.convert(ev); ok {
		return w.send(out)
	}
	return true
}

// sendInitial sends the initial objects as ADDED (in key order) or the initial history
// events, then the initial-events-end BOOKMARK if asked; it reports whether the watch goes on.
func (w *cacheWatcher) sendInitial() bool {
	ok := true
	if t := w.initialObjects; t != nil {
		w.initialObjects = nil
		read := readerFor(w.ctx)
		ascend(t, w.key, w.recursive, func(e *entry) bool {
			obj := read(e)
			if match, err := w.pred.Matches(obj); err == nil && match {
				ok = w.send(watch.Event{Type: watch.Added, Object: w.handOut(obj)})
			}
			return ok
		})
	}
	events := w.initialEvents
	w.initialEvents = nil
	for _, ev := range events {
		if !ok {
			break
		}
		if out, match := w.convert(ev); match {
			ok = w.send(out)
		}
	}
	if ok && w.endBookmark > 0 {
		ok = w.send(w.bookmark(w.endBookmark, true))
	}
	return ok
}

// send delivers ev unless the watch has ended; it reports whether it did.
func (w *cacheWatcher) send(ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.done:
		return false
	case <-w.ctx.Done():
		return false
	}
}

// convert turns a cache event into this watcher's event, as kube-apiserver's
// convertToWatchEvent: an object entering the selection is ADDED, one leaving it DELETED
// (its previous state, at the event's resourceVersion). ok is false when the event does not
// concern the watcher.
func (w *cacheWatcher) convert(ev *event) (watch.Event, bool) {
	if !w.inScope(ev.key) {
		return watch.Event{}, false
	}
	obj, prev := ev.object(), ev.previous()
	curOK := ev.typ != watch.Deleted && w.matches(obj)
	prevOK := prev != nil && w.matches(prev)
	switch {
	case curOK && prevOK:
		return watch.Event{Type: watch.Modified, Object: w.handOut(obj)}, true
	case curOK:
		return watch.Event{Type: watch.Added, Object: w.handOut(obj)}, true
	case prevOK && ev.typ == watch.Deleted:
		return watch.Event{Type: watch.Deleted, Object: w.handOut(obj)}, true
	case prevOK:
		return watch.Event{Type: watch.Deleted, Object: w.handOut(ev.left())}, true
	}
	return watch.Event{}, false
}

// left returns the object of a DELETED event for a watcher the object left the selection
// of: its previous state with the event's resourceVersion, made once per event.
func (ev *event) left() runtime.Object {
	ev.leftOnce.Do(func() {
		obj := ev.previous().DeepCopyObject()
		if acc, err := meta.Accessor(obj); err == nil {
			acc.SetResourceVersion(formatRevision(ev.rev))
		}
		ev.leftObj = obj
	})
	return ev.leftObj
}

// inScope reports whether key is the watcher's key, or under it for a recursive watch.
func (w *cacheWatcher) inScope(key string) bool {
	if w.recursive {
		return strings.HasPrefix(key, w.key)
	}
	return key == w.key
}

// matches reports whether the predicate selects obj; an object it cannot judge is left out.
func (w *cacheWatcher) matches(obj runtime.Object) bool {
	ok, err := w.pred.Matches(obj)
	return err == nil && ok
}

// handOut returns obj for the consumer: obj itself when it never writes to it
// (sharedObjects); a shallow copy when it only reads (shared) and obj's type allows one
// (encoders may still set its TypeMeta), else a deep copy.
func (w *cacheWatcher) handOut(obj runtime.Object) runtime.Object {
	if w.sharedObjects {
		return obj
	}
	return storage.CopyFor(obj, w.shared)
}

// bookmark returns a BOOKMARK event at rev: an empty object with only its resourceVersion
// (and, when initialEnd, the initial-events-end annotation) set.
func (w *cacheWatcher) bookmark(rev int64, initialEnd bool) watch.Event {
	obj := w.c.newFunc()
	if acc, err := meta.Accessor(obj); err == nil {
		acc.SetResourceVersion(formatRevision(rev))
		if initialEnd {
			acc.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
		}
	}
	return watch.Event{Type: watch.Bookmark, Object: obj}
}
