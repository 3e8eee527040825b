package cacher

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// Watch implements storage.Interface from the cache, as kube-apiserver's cacher:
//
//   - resourceVersion N: the events after N from the history, then live ones; N older than
//     the history is a 410 Expired ERROR event (even when etcd still has it: the cache is
//     what watches are served from); N newer than the cache waits for it;
//   - "" or "0" without SendInitialEvents: ADDED for every object of the cache's current
//     state, then live events;
//   - SendInitialEvents=true (streaming lists, resourceVersionMatch=NotOlderThan): once the
//     cache has reached N (or, for "", the revision a quorum read sees now), ADDED for every
//     current object, the initial-events-end BOOKMARK, then live events;
//   - SendInitialEvents=false with "" or "0": live events only, from now.
//
// With ProgressNotify, the watcher gets a BOOKMARK about every minute. A watcher that falls
// resultBuffer events behind (inputBuffer while it sends its initial events) and stays so
// through the dispatch budget is cut off: its result channel closes and
// request.TerminateWatch(ctx) ends its consumer. Until the cache is synced
// (and after Stop) the watch goes to storage.
func (c *Cacher) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	k, err := c.cleanKey(key, opts.Recursive)
	if err != nil {
		return nil, err
	}
	rev, err := storage.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	sie := opts.SendInitialEvents
	initial := (sie == nil && rev == 0) || (sie != nil && *sie)
	need, start := int64(0), rev
	if sie != nil {
		if opts.ResourceVersion == "" {
			if c.revisions == nil {
				return c.storage.Watch(ctx, key, opts)
			}
			if need, err = c.revisions.CurrentRevision(ctx); err != nil {
				return nil, err
			}
			start = need
		} else if *sie {
			need = rev
		} else if rev == 0 {
			start = -1 // "0" without initial events: from the cache's revision
		}
	}
	if _, err := c.state.waitFresh(ctx, need, c.askProgress); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return c.storage.Watch(ctx, key, opts)
	}
	w := c.newWatcher(ctx, k, opts)
	switch err := c.register(w, initial, start, sie != nil && *sie); {
	case errors.Is(err, errNotSynced{}):
		return c.storage.Watch(ctx, key, opts)
	case err != nil:
		return expiredWatch(err), nil
	}
	go w.run()
	return w, nil
}

// newWatcher returns a watcher of key (cleaned) for opts, not yet registered.
func (c *Cacher) newWatcher(ctx context.Context, key string, opts storage.ListOptions) *cacheWatcher {
	w := &cacheWatcher{
		c: c, ctx: ctx, key: key, recursive: opts.Recursive, ns: namespaceOf(key), pred: opts.Predicate,
		shared: request.ReadOnlyResults(ctx), sharedObjects: request.SharedWatchObjects(ctx), bookmarks: opts.ProgressNotify,
		input: make(chan *event, inputBuffer), result: make(chan watch.Event, resultBuffer),
		done: make(chan struct{}), exited: make(chan struct{}),
	}
	w.deadline, _ = ctx.Deadline()
	w.scheduleBookmark(time.Now())
	return w
}

// register fixes where w starts, under the state's read lock so that no event is applied
// meanwhile, and adds it to the watchers: with initial, at the cache's current objects (and
// the initial-events-end BOOKMARK at their revision when endBookmark); otherwise after
// revision start, replaying the history after it. Errors: errNotSynced; a 410 Expired
// StatusError when start is before the history.
func (c *Cacher) register(w *cacheWatcher, initial bool, start int64, endBookmark bool) error {
	s := c.state
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.synced {
		return errNotSynced{}
	}
	switch {
	case initial:
		w.initialObjects, w.after = s.current, s.rev
		if endBookmark {
			w.endBookmark = s.rev
		}
	case start < 0:
		w.after = s.rev
	case start < s.baseRev:
		return storage.NewExpiredError(start, fmt.Sprintf("too old resource version: %d (%d)", start, s.baseRev))
	default:
		for i := range s.history.len() {
			if ev := s.history.at(i); ev.rev > start {
				w.initialEvents = append(w.initialEvents, ev)
			}
		}
		w.after = max(start, s.rev)
	}
	c.watchers.mu.Lock()
	defer c.watchers.mu.Unlock()
	c.watchers.addLocked(w)
	return nil
}

// errWatcher is a watch that sends one ERROR event and ends, as kube-apiserver's cacher
// answers a watch it cannot serve once the request is accepted.
type errWatcher struct{ result chan watch.Event }

func (e *errWatcher) ResultChan() <-chan watch.Event { return e.result }
func (e *errWatcher) Stop()                          {}

// expiredWatch returns the watch of a 410 Expired err.
func expiredWatch(err error) watch.Interface {
	st := &metav1.Status{Status: metav1.StatusFailure, Message: err.Error(), Code: http.StatusGone,
		Reason: metav1.StatusReasonExpired}
	w := &errWatcher{result: make(chan watch.Event, 1)}
	w.result <- watch.Event{Type: watch.Error, Object: st}
	close(w.result)
	return w
}
