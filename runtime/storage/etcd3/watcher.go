package etcd3

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// resultBufferSize is how many events a watch buffers for a slow consumer.
const resultBufferSize = 100

// slowWatcherTimeout is how long a watch waits for its consumer when its result buffer is
// full of change events before it gives up and closes, as kube-apiserver's watch cache
// terminates an unresponsive watcher (the client then watches again from the last
// resourceVersion it saw, or relists). Without it, etcd's changes pile up unread in the etcd
// client's watch buffers for as long as the consumer stalls. Initial events are not cut: they
// are read initialChunk keys at a time, so a slow consumer of them holds one chunk.
var slowWatcherTimeout = time.Second

// initialChunk is how many keys one etcd read of a watch's initial events fetches.
const initialChunk = 128

// bookmarkFrequency is how often a watch that asked for bookmarks gets one when nothing has
// been sent to it for that long, as kube-apiserver's watch cache bookmarks every watcher about
// once a minute. etcd's own progress notifications (which become BOOKMARKs too) skip a watch
// that starts after etcd's current revision - an idle watch from the latest resourceVersion -
// and an external etcd's notify interval is not the server's to set.
var bookmarkFrequency = time.Minute

// InitialEventsEndAnnotation marks the BOOKMARK that ends a streaming list's initial events
// (metav1.InitialEventsAnnotationKey).
const InitialEventsEndAnnotation = metav1.InitialEventsAnnotationKey

// watcher is one running watch; it implements watch.Interface.
type watcher struct {
	s         *store
	key       string // the relative key, for errors
	etcdKey   string
	recursive bool
	opts      storage.ListOptions
	// startRev is the revision the watch starts after (exclusive); 0 = read the current
	// state first (initial events) and start after that read.
	startRev      int64
	initialEvents bool
	// initial is the first read of the initial events (nil without them): at most
	// initialChunk keys, the rest are read at its revision as they are sent. Watch makes it
	// before returning, so the watch's starting point is fixed by the time the caller sees
	// it: a write made after Watch returns is always a change event, never folded into (or,
	// for a delete, hidden by) the initial state, as kube-apiserver's watch cache registers a
	// watcher before its response starts.
	initial *clientv3.GetResponse

	ctx    context.Context
	cancel context.CancelFunc
	result chan watch.Event
	done   chan struct{}
	once   sync.Once
	// lastRev is the revision up to which every event of the watch has been sent (the start,
	// the last event's, or the last progress notification's); sent records whether anything
	// was sent since the last bookmark tick. Both belong to run's goroutine.
	lastRev int64
	sent    bool
}

// Watch implements storage.Interface, as kube-apiserver's etcd3 watcher: ResourceVersion N
// streams changes after revision N; "" and "0" (unless SendInitialEvents is false) first send
// ADDED for every current object; SendInitialEvents=true ends the initial events with a
// BOOKMARK annotated "k8s.io/initial-events-end". A compacted start revision ends the stream
// with an ERROR event holding a 410 Expired metav1.Status. Stop or the end of ctx closes the
// result channel.
func (s *store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	k, err := s.fullKey(key)
	if err != nil {
		return nil, err
	}
	if opts.Recursive && !strings.HasSuffix(k, "/") {
		k += "/"
	}
	rev, err := parseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	w := &watcher{s: s, key: key, etcdKey: k, recursive: opts.Recursive, opts: opts, startRev: rev,
		result: make(chan watch.Event, resultBufferSize), done: make(chan struct{})}
	sie := opts.SendInitialEvents
	w.initialEvents = (sie == nil && rev == 0) || (sie != nil && *sie)
	var minRev int64
	if sie != nil && *sie && opts.ResourceVersionMatch == metav1.ResourceVersionMatchNotOlderThan {
		// A streaming list shows a state at least as new as rev, as kube-apiserver's watch
		// cache serves it: the latest, so a compacted rev is no error.
		minRev, w.startRev = rev, 0
	}
	if rev == 0 && !w.initialEvents {
		// Only changes from now on: start after the current revision.
		resp, err := s.client.Get(ctx, k, clientv3.WithCountOnly())
		if err != nil {
			return nil, interpretError(err, key, watchExpiredMessage, 0)
		}
		w.startRev = resp.Header.Revision
	}
	w.ctx, w.cancel = context.WithCancel(clientv3.WithRequireLeader(ctx))
	if w.initialEvents {
		if w.initial, err = w.readInitial(); err != nil {
			w.cancel()
			return nil, err
		}
		if current := w.initial.Header.Revision; current < minRev {
			// A revision etcd has not reached: wait for it, then read again.
			if err := s.waitForRevision(w.ctx, key, k, minRev, current); err != nil {
				w.cancel()
				return nil, err
			}
			if w.initial, err = w.readInitial(); err != nil {
				w.cancel()
				return nil, err
			}
		}
	}
	go w.run()
	return w, nil
}

// Stop ends the watch and waits for its goroutine; the result channel is closed. Stop may be
// called more than once, from any goroutine.
func (w *watcher) Stop() {
	w.cancel()
	<-w.done
}

// ResultChan returns the events; it is closed when the watch ends.
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// run sends the initial events, if any, then the etcd changes, until the watch ends.
func (w *watcher) run() {
	defer close(w.done)
	defer close(w.result)
	defer w.cancel()
	if m := w.s.metrics; m != nil && !storage.InternalWatch(w.ctx) {
		// apiserver_registered_watchers; the version label is empty: storage watches the
		// internal version, whatever version the client asked for.
		obj := w.s.newFunc()
		gvk := schema.GroupVersionKind{Group: w.s.gr.Group, Kind: reflect.Indirect(reflect.ValueOf(obj)).Type().Name()}
		if u, ok := obj.(runtime.Unstructured); ok { // a custom resource: the object names its kind
			gvk.Kind = u.GetObjectKind().GroupVersionKind().Kind
		}
		m.AddWatchers(gvk, 1)
		defer m.AddWatchers(gvk, -1)
	}
	if w.initialEvents {
		rev, err := w.sendInitialEvents()
		if err != nil {
			w.sendError(err)
			return
		}
		w.startRev = rev
	}
	ops := []clientv3.OpOption{clientv3.WithRev(w.startRev + 1), clientv3.WithPrevKV()}
	if w.recursive {
		ops = append(ops, clientv3.WithPrefix())
	}
	if w.opts.ProgressNotify {
		ops = append(ops, clientv3.WithProgressNotify())
	}
	wch := w.s.client.Watch(w.ctx, w.etcdKey, ops...)
	w.lastRev = w.startRev
	var ticks <-chan time.Time
	if w.opts.ProgressNotify {
		t := time.NewTicker(bookmarkFrequency)
		defer t.Stop()
		ticks = t.C
	}
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-ticks:
			if !w.sent && !w.sendChange(w.bookmark(w.lastRev, false)) {
				return
			}
			w.sent = false
		case resp, ok := <-wch:
			if !ok || !w.handle(resp) {
				return
			}
		}
	}
}

// handle sends the watch events of one etcd watch response; it reports whether the watch
// goes on.
func (w *watcher) handle(resp clientv3.WatchResponse) bool {
	if err := resp.Err(); err != nil {
		w.sendError(interpretError(err, w.key, watchExpiredMessage, w.startRev))
		return false
	}
	if resp.IsProgressNotify() {
		w.lastRev = max(w.lastRev, resp.Header.Revision)
		return !w.opts.ProgressNotify || w.sendChange(w.bookmark(resp.Header.Revision, false))
	}
	for _, e := range resp.Events {
		w.lastRev = max(w.lastRev, e.Kv.ModRevision)
		ev, ok, err := w.transform(e)
		if err != nil {
			w.sendError(err)
			return false
		}
		if ok && !w.sendChange(ev) {
			return false
		}
	}
	return true
}

// readInitial reads the first initialChunk keys of the state the initial events show: at
// startRev if set, else the latest. Errors: as interpretError (410 Expired for a compacted
// startRev, 503 when etcd is down).
func (w *watcher) readInitial() (*clientv3.GetResponse, error) {
	return w.readInitialFrom(w.etcdKey, w.startRev)
}

// readInitialFrom reads up to initialChunk keys of the initial state from key on, at rev (0:
// the latest).
func (w *watcher) readInitialFrom(key string, rev int64) (*clientv3.GetResponse, error) {
	var ops []clientv3.OpOption
	if w.recursive {
		ops = append(ops, clientv3.WithRange(clientv3.GetPrefixRangeEnd(w.etcdKey)), clientv3.WithLimit(initialChunk))
	}
	if rev > 0 {
		ops = append(ops, clientv3.WithRev(rev))
	}
	resp, err := w.s.client.Get(w.ctx, key, ops...)
	if err != nil {
		return nil, interpretError(err, w.key, watchExpiredMessage, rev)
	}
	return resp, nil
}

// sendInitialEvents sends ADDED for every object of the initial state matching the predicate,
// reading it chunk by chunk at the first read's revision, and, for a streaming list, the
// initial-events-end BOOKMARK. It returns the revision of the state.
func (w *watcher) sendInitialEvents() (int64, error) {
	resp := w.initial
	w.initial = nil // the events hold what they need; let the rest go
	rev := resp.Header.Revision
	if w.startRev > 0 {
		rev = w.startRev
	}
	for {
		for _, kv := range resp.Kvs {
			data, err := w.s.plain(w.ctx, string(kv.Key), kv.Value)
			if err != nil {
				return 0, err
			}
			obj, err := w.s.decodeFor(w.ctx, string(kv.Key), data, kv.ModRevision, kv.ModRevision)
			if err != nil {
				return 0, err
			}
			ok, err := w.opts.Predicate.Matches(obj)
			if err != nil {
				return 0, err
			}
			if ok && !w.send(watch.Event{Type: watch.Added, Object: obj}) {
				return 0, w.ctx.Err()
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		next := string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
		var err error
		if resp, err = w.readInitialFrom(next, rev); err != nil {
			return 0, err
		}
	}
	if sie := w.opts.SendInitialEvents; sie != nil && *sie {
		if !w.send(w.bookmark(rev, true)) {
			return 0, w.ctx.Err()
		}
	}
	return rev, nil
}

// transform turns an etcd event into a watch event, applying the predicate: an object
// leaving the selection is DELETED, one entering it ADDED. ok is false when the event is
// not for this watcher.
func (w *watcher) transform(e *clientv3.Event) (ev watch.Event, ok bool, err error) {
	rev := e.Kv.ModRevision
	var cur, prev runtime.Object
	if e.Type == clientv3.EventTypePut {
		data, err := w.s.plain(w.ctx, string(e.Kv.Key), e.Kv.Value)
		if err != nil {
			return ev, false, err
		}
		if cur, err = w.s.decodeFor(w.ctx, string(e.Kv.Key), data, rev, rev); err != nil {
			return ev, false, err
		}
	}
	if e.Type == clientv3.EventTypePut && w.opts.Predicate.Empty() {
		// Every object matches: a put is ADDED or MODIFIED by the key's create revision, and
		// the previous state need not be decoded.
		if e.IsCreate() {
			return watch.Event{Type: watch.Added, Object: cur}, true, nil
		}
		return watch.Event{Type: watch.Modified, Object: cur}, true, nil
	}
	if e.PrevKv != nil {
		// The previous state carries the event's revision, as kube-apiserver sends it.
		data, err := w.s.plain(w.ctx, string(e.PrevKv.Key), e.PrevKv.Value)
		if err != nil {
			return ev, false, err
		}
		if prev, err = w.s.decodeFor(w.ctx, string(e.PrevKv.Key), data, e.PrevKv.ModRevision, rev); err != nil {
			return ev, false, err
		}
	}
	curOK, err := w.matches(cur)
	if err != nil {
		return ev, false, err
	}
	prevOK, err := w.matches(prev)
	if err != nil {
		return ev, false, err
	}
	// A change whose previous state etcd no longer has (compacted before the watch read it)
	// is still a change when every object matches, as kube-apiserver's watcher decides by
	// the key's create revision rather than by the previous value.
	modifiedWithoutPrev := cur != nil && prev == nil && !e.IsCreate() && w.opts.Predicate.Empty()
	switch {
	case curOK && (prevOK || modifiedWithoutPrev):
		return watch.Event{Type: watch.Modified, Object: cur}, true, nil
	case curOK:
		return watch.Event{Type: watch.Added, Object: cur}, true, nil
	case prevOK:
		return watch.Event{Type: watch.Deleted, Object: prev}, true, nil
	}
	return ev, false, nil
}

// matches reports whether obj is non-nil and selected by the watch's predicate.
func (w *watcher) matches(obj runtime.Object) (bool, error) {
	if obj == nil {
		return false, nil
	}
	return w.opts.Predicate.Matches(obj)
}

// bookmark returns a BOOKMARK event at rev: an empty object with only its resourceVersion
// (and, when initialEnd, the initial-events-end annotation) set.
func (w *watcher) bookmark(rev int64, initialEnd bool) watch.Event {
	obj := w.s.newFunc()
	if acc, err := meta.Accessor(obj); err == nil {
		acc.SetResourceVersion(fmt.Sprint(rev))
		if initialEnd {
			acc.SetAnnotations(map[string]string{InitialEventsEndAnnotation: "true"})
		}
	}
	return watch.Event{Type: watch.Bookmark, Object: obj}
}

// send delivers an initial event unless the watch has ended, waiting as long as the
// consumer takes; it reports whether it did.
func (w *watcher) send(ev watch.Event) bool { return w.deliver(ev, nil) }

// sendChange delivers a change (or bookmark) event unless the watch has ended or its consumer
// has left the result buffer full for slowWatcherTimeout; it reports whether it did. A watch
// that returns false for a slow consumer ends: its result channel closes after the events
// already buffered. An internal watch (storage.WithInternalWatch: a watch cache's, which
// consumes into memory and cuts off its own slow watchers) waits as long as its consumer
// takes, so a loaded machine does not make the cache relist.
func (w *watcher) sendChange(ev watch.Event) bool {
	select {
	case w.result <- ev:
		w.sent = true
		return true
	default:
	}
	if storage.InternalWatch(w.ctx) {
		return w.deliver(ev, nil)
	}
	timer := time.NewTimer(slowWatcherTimeout)
	defer timer.Stop()
	if w.deliver(ev, timer.C) {
		return true
	}
	if w.ctx.Err() == nil {
		slog.Warn("closing a watch whose client does not keep up", "resource", w.s.gr.String(), "key", w.key,
			"buffered", len(w.result), "waited", slowWatcherTimeout)
	}
	return false
}

// deliver sends ev on the result channel unless the watch ends or giveUp fires first (nil:
// never); it reports whether it did.
func (w *watcher) deliver(ev watch.Event, giveUp <-chan time.Time) bool {
	select {
	case w.result <- ev:
		w.sent = true
		return true
	case <-w.ctx.Done():
		return false
	case <-giveUp:
		return false
	}
}

// sendError delivers err as an ERROR event holding a metav1.Status (410 Expired for a
// compacted revision), unless the watch was stopped.
func (w *watcher) sendError(err error) {
	if w.ctx.Err() != nil {
		return
	}
	w.sendChange(watch.Event{Type: watch.Error, Object: errorStatus(err)})
}

// errorStatus renders a storage error as the metav1.Status of a watch ERROR event.
func errorStatus(err error) *metav1.Status {
	st := &metav1.Status{Status: metav1.StatusFailure, Message: err.Error(),
		Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError}
	switch {
	case storage.IsExpired(err):
		st.Code, st.Reason = http.StatusGone, metav1.StatusReasonExpired
	case storage.IsUnreachable(err):
		st.Code, st.Reason = http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable
	case storage.IsTimeout(err), storage.IsResourceVersionTooLarge(err):
		st.Code, st.Reason = http.StatusGatewayTimeout, metav1.StatusReasonTimeout
	case storage.IsInvalidObj(err):
		st.Code, st.Reason = http.StatusBadRequest, metav1.StatusReasonBadRequest
	}
	return st
}
