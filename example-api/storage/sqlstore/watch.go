package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// watchBuffer is how many events a watch holds for a slow reader before its reads of the
// log wait.
const watchBuffer = 100

// watcher is one Watch: a goroutine reading the change log after its revision.
type watcher struct {
	s          *Store
	from, end  string // the key range
	pred       storage.SelectionPredicate
	progress   bool // send BOOKMARKs while idle
	last       int64
	initial    []watch.Event
	result     chan watch.Event
	ctx        context.Context
	cancel     context.CancelFunc
	stopOnce   sync.Once
	lastSentAt time.Time
}

// Watch implements storage.Interface. A watch from resourceVersion "" or "0" (or with
// SendInitialEvents) first reads the current objects, in Watch, at one revision; the watch
// then follows the change log after that revision, or after the resourceVersion given.
// Errors: InvalidObj for a bad key or resourceVersion, Expired (410) for a resourceVersion
// older than the last compaction.
func (s *Store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	k, err := s.cleanKey(key)
	if err != nil {
		return nil, err
	}
	w := &watcher{s: s, from: k, end: k + "\x00", pred: opts.Predicate, progress: opts.ProgressNotify,
		result: make(chan watch.Event, watchBuffer)}
	if opts.Recursive {
		if k[len(k)-1] != '/' {
			k += "/"
		}
		w.from, w.end = k, prefixEnd(k)
	}
	var rv int64
	if opts.ResourceVersion != "" {
		if rv, err = strconv.ParseInt(opts.ResourceVersion, 10, 64); err != nil || rv < 0 {
			return nil, storage.NewInvalidObjError(key, fmt.Sprintf("invalid resource version %q", opts.ResourceVersion))
		}
	}
	sendInitial := rv == 0
	if opts.SendInitialEvents != nil {
		sendInitial = *opts.SendInitialEvents
	}
	if err := w.start(ctx, rv, sendInitial, opts.SendInitialEvents != nil && *opts.SendInitialEvents); err != nil {
		return nil, err
	}
	s.startListener()
	w.ctx, w.cancel = context.WithCancel(ctx)
	go w.run()
	return w, nil
}

// start sets the watch's starting revision: the current state's (queued as ADDED events
// when initial, then an initial-events-end BOOKMARK when bookmark), or rv, which must not be
// compacted.
func (w *watcher) start(ctx context.Context, rv int64, initial, bookmark bool) error {
	s := w.s
	tx, err := s.cfg.DB.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return dbError(w.from, err)
	}
	defer func() { _ = tx.Rollback() }()
	var current, compacted int64
	if err := tx.QueryRowContext(ctx, s.q.revisions).Scan(&current, &compacted); err != nil {
		return dbError(w.from, err)
	}
	if rv > 0 && !initial {
		if rv < compacted {
			return storage.NewExpiredError(rv, watchExpiredMessage)
		}
		w.last = rv
		return nil
	}
	w.last = max(current, rv)
	if !initial {
		return nil
	}
	from := w.from
	for {
		rows, err := s.readRows(ctx, tx, from, w.end, 0)
		if err != nil {
			return err
		}
		for _, r := range rows {
			obj, err := s.decode(r.data, r.rev)
			if err != nil {
				return err
			}
			if ok, err := w.pred.Matches(obj); err != nil {
				return err
			} else if ok {
				w.initial = append(w.initial, watch.Event{Type: watch.Added, Object: obj})
			}
		}
		if len(rows) < readChunk {
			break
		}
		from = rows[len(rows)-1].key + "\x00"
	}
	if bookmark {
		bm, err := w.bookmark(w.last)
		if err != nil {
			return err
		}
		acc, err := meta.Accessor(bm.Object)
		if err != nil {
			return storage.NewInternalError(fmt.Sprintf("cannot annotate a BOOKMARK %T: %v", bm.Object, err))
		}
		acc.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
		w.initial = append(w.initial, bm)
	}
	return nil
}

// Stop implements watch.Interface.
func (w *watcher) Stop() { w.stopOnce.Do(w.cancel) }

// ResultChan implements watch.Interface.
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// run sends the initial events, then the log's changes after w.last, until stopped.
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
	for {
		wake := w.s.wake()
		if !w.poll() {
			return
		}
		if w.progress && time.Since(w.lastSentAt) >= w.s.cfg.BookmarkInterval {
			bm, err := w.bookmark(w.last)
			if err != nil || !w.send(bm) {
				return
			}
		}
		select {
		case <-w.ctx.Done():
			return
		case <-wake:
		case <-time.After(w.s.cfg.PollInterval):
		}
	}
}

// poll reads the changes after w.last and sends their events; false when the watch ends
// (stopped, compacted past, or the database failed: then after an ERROR event).
func (w *watcher) poll() bool {
	s := w.s
	tx, err := s.cfg.DB.BeginTx(w.ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return w.fail(err)
	}
	defer func() { _ = tx.Rollback() }()
	var current, compacted int64
	if err := tx.QueryRowContext(w.ctx, s.q.revisions).Scan(&current, &compacted); err != nil {
		return w.fail(err)
	}
	if w.last < compacted {
		w.send(errorEvent(http.StatusGone, metav1.StatusReasonExpired, watchExpiredMessage))
		return false
	}
	if current <= w.last {
		return true
	}
	rows, err := tx.QueryContext(w.ctx, s.q.changes, w.last, current, sqlKey(w.from), sqlKey(w.end))
	if err != nil {
		return w.fail(err)
	}
	var events []watch.Event
	for rows.Next() {
		var (
			rev      int64
			key, typ string
			data     []byte
			prevData []byte
		)
		if err := rows.Scan(&rev, &key, &typ, &data, &prevData); err != nil {
			rows.Close()
			return w.fail(err)
		}
		ev, ok, err := w.event(rev, typ, data, prevData)
		if err != nil {
			rows.Close()
			return w.fail(err)
		}
		if ok {
			events = append(events, ev)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return w.fail(err)
	}
	for _, ev := range events {
		if !w.send(ev) {
			return false
		}
	}
	w.last = current
	return true
}

// event returns the event a logged change is for this watch's predicate, as etcd3's
// watcher: an object entering the selection is ADDED, one leaving it DELETED (its previous
// state at the change's revision).
func (w *watcher) event(rev int64, typ string, data, prevData []byte) (watch.Event, bool, error) {
	obj, err := w.s.decode(data, rev)
	if err != nil {
		return watch.Event{}, false, err
	}
	matches, err := w.pred.Matches(obj)
	if err != nil {
		return watch.Event{}, false, err
	}
	switch typ {
	case "ADDED":
		return watch.Event{Type: watch.Added, Object: obj}, matches, nil
	case "DELETED":
		return watch.Event{Type: watch.Deleted, Object: obj}, matches, nil
	}
	if w.pred.Empty() || prevData == nil {
		return watch.Event{Type: watch.Modified, Object: obj}, matches, nil
	}
	prev, err := w.s.decode(prevData, rev)
	if err != nil {
		return watch.Event{}, false, err
	}
	prevMatches, err := w.pred.Matches(prev)
	if err != nil {
		return watch.Event{}, false, err
	}
	switch {
	case matches && prevMatches:
		return watch.Event{Type: watch.Modified, Object: obj}, true, nil
	case matches:
		return watch.Event{Type: watch.Added, Object: obj}, true, nil
	case prevMatches:
		return watch.Event{Type: watch.Deleted, Object: prev}, true, nil
	}
	return watch.Event{}, false, nil
}

// bookmark returns a BOOKMARK event at rev: an empty object with only its resourceVersion.
func (w *watcher) bookmark(rev int64) (watch.Event, error) {
	obj := w.s.cfg.NewFunc()
	if err := setRV(obj, rev); err != nil {
		return watch.Event{}, err
	}
	return watch.Event{Type: watch.Bookmark, Object: obj}, nil
}

// send sends ev unless the watch is stopped first.
func (w *watcher) send(ev watch.Event) bool {
	select {
	case w.result <- ev:
		w.lastSentAt = time.Now()
		return true
	case <-w.ctx.Done():
		return false
	}
}

// fail ends the watch with a 500 ERROR event for a database error (none once stopped).
func (w *watcher) fail(err error) bool {
	if w.ctx.Err() == nil {
		w.send(errorEvent(http.StatusInternalServerError, metav1.StatusReasonInternalError,
			fmt.Sprintf("cannot read the change log of %s: %v", w.s.cfg.Resource, err)))
	}
	return false
}

// errorEvent is an ERROR event carrying a failure Status.
func errorEvent(code int32, reason metav1.StatusReason, msg string) watch.Event {
	return watch.Event{Type: watch.Error, Object: &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Reason: reason, Message: msg}}
}
