package memory

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// BookmarkInterval is the gap between BOOKMARK events of an idle watch that asks for them.
const BookmarkInterval = time.Second

// watcher is one Watch: a goroutine sending the history's changes after its revision.
type watcher struct {
	s          *Store
	from, end  string
	pred       storage.SelectionPredicate
	progress   bool
	last       int64
	initial    []watch.Event
	result     chan watch.Event
	ctx        context.Context
	cancel     context.CancelFunc
	once       sync.Once
	lastSentAt time.Time
}

// Watch implements storage.Interface. From resourceVersion "" or "0" (or with
// SendInitialEvents) it first sends the current objects as ADDED, read when Watch returns.
// Errors: InvalidObj for a bad key or resourceVersion; Expired (410) for a compacted one.
func (s *Store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	k, err := s.cleanKey(key)
	if err != nil {
		return nil, err
	}
	_, from, end := keyRange(k, opts.Recursive)
	var rv int64
	if opts.ResourceVersion != "" {
		if rv, err = strconv.ParseInt(opts.ResourceVersion, 10, 64); err != nil || rv < 0 {
			return nil, storage.NewInvalidObjError(key, fmt.Sprintf("invalid resource version %q", opts.ResourceVersion))
		}
	}
	initial := rv == 0
	if opts.SendInitialEvents != nil {
		initial = *opts.SendInitialEvents
	}
	w := &watcher{s: s, from: from, end: end, pred: opts.Predicate, progress: opts.ProgressNotify,
		result: make(chan watch.Event, 100)}
	s.mu.Lock()
	switch {
	case rv > 0 && !initial:
		if rv < s.compacted {
			s.mu.Unlock()
			return nil, storage.NewExpiredError(rv, watchExpiredMessage)
		}
		w.last = rv
		s.mu.Unlock()
	default:
		w.last = max(s.rev, rv)
		var keys []string
		var state map[string]entry
		if initial {
			keys, state = s.stateAt(from, end, s.rev)
		}
		s.mu.Unlock()
		for _, k := range keys {
			obj, err := s.decode(state[k].data, state[k].rev)
			if err != nil {
				return nil, err
			}
			if ok, err := w.pred.Matches(obj); err != nil {
				return nil, err
			} else if ok {
				w.initial = append(w.initial, watch.Event{Type: watch.Added, Object: obj})
			}
		}
		if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
			bm, err := w.bookmark()
			if err != nil {
				return nil, err
			}
			acc, _ := meta.Accessor(bm.Object)
			acc.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
			w.initial = append(w.initial, bm)
		}
	}
	w.ctx, w.cancel = context.WithCancel(ctx)
	go w.run()
	return w, nil
}

// Stop implements watch.Interface.
func (w *watcher) Stop() { w.once.Do(w.cancel) }

// ResultChan implements watch.Interface.
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// run sends the initial events, then every change after w.last, until stopped.
func (w *watcher) run() {
	defer close(w.result)
	defer w.Stop()
	for _, ev := range w.initial {
		if !w.send(ev) {
			return
		}
	}
	w.initial = nil
	w.lastSentAt = time.Now()
	tick := time.NewTicker(BookmarkInterval / 4)
	defer tick.Stop()
	for {
		s := w.s
		s.mu.Lock()
		if w.last < s.compacted {
			s.mu.Unlock()
			w.send(watch.Event{Type: watch.Error, Object: &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: watchExpiredMessage}})
			return
		}
		i := sort.Search(len(s.log), func(i int) bool { return s.log[i].rev > w.last })
		changes := append([]change(nil), s.log[i:]...)
		current, wake := s.rev, s.written
		s.mu.Unlock()
		for _, c := range changes {
			if c.key < w.from || c.key >= w.end {
				continue
			}
			ev, ok, err := w.event(c)
			if err != nil {
				w.send(watch.Event{Type: watch.Error, Object: &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
					Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError, Message: err.Error()}})
				return
			}
			if ok && !w.send(ev) {
				return
			}
		}
		w.last = max(w.last, current)
		if w.progress && time.Since(w.lastSentAt) >= BookmarkInterval {
			bm, err := w.bookmark()
			if err != nil || !w.send(bm) {
				return
			}
		}
		select {
		case <-w.ctx.Done():
			return
		case <-wake:
		case <-tick.C:
		}
	}
}

// event returns the event a change is for the watch's predicate: entering it is ADDED,
// leaving it DELETED (with the previous state at the change's revision).
func (w *watcher) event(c change) (watch.Event, bool, error) {
	obj, err := w.s.decode(c.data, c.rev)
	if err != nil {
		return watch.Event{}, false, err
	}
	matches, err := w.pred.Matches(obj)
	if err != nil {
		return watch.Event{}, false, err
	}
	switch {
	case c.typ == "ADDED":
		return watch.Event{Type: watch.Added, Object: obj}, matches, nil
	case c.typ == "DELETED":
		return watch.Event{Type: watch.Deleted, Object: obj}, matches, nil
	case w.pred.Empty() || !c.prevAlive:
		return watch.Event{Type: watch.Modified, Object: obj}, matches, nil
	}
	prev, err := w.s.decode(c.prev, c.rev)
	if err != nil {
		return watch.Event{}, false, err
	}
	was, err := w.pred.Matches(prev)
	if err != nil {
		return watch.Event{}, false, err
	}
	switch {
	case matches && was:
		return watch.Event{Type: watch.Modified, Object: obj}, true, nil
	case matches:
		return watch.Event{Type: watch.Added, Object: obj}, true, nil
	case was:
		return watch.Event{Type: watch.Deleted, Object: prev}, true, nil
	}
	return watch.Event{}, false, nil
}

// bookmark returns a BOOKMARK at w.last.
func (w *watcher) bookmark() (watch.Event, error) {
	obj := w.s.newFunc()
	if err := setRV(obj, w.last); err != nil {
		return watch.Event{}, err
	}
	return watch.Event{Type: watch.Bookmark, Object: obj}, nil
}

// send sends ev unless the watch stops first.
func (w *watcher) send(ev watch.Event) bool {
	select {
	case w.result <- ev:
		w.lastSentAt = time.Now()
		return true
	case <-w.ctx.Done():
		return false
	}
}
