package etcd3

import (
	"context"
	"fmt"
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
	// initial is the read whose objects are the initial events (nil without them). Watch
	// makes it before returning, so the watch's starting point is fixed by the time the
	// caller sees it: a write made after Watch returns is always a change event, never
	// folded into (or, for a delete, hidden by) the initial state, as kube-apiserver's
	// watch cache registers a watcher before its response starts.
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
			w.cancel()
			return nil, tooLargeResourceVersion(minRev, current)
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
			if !w.sent && !w.send(w.bookmark(w.lastRev, false)) {
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
		return !w.opts.ProgressNotify || w.send(w.bookmark(resp.Header.Revision, false))
	}
	for _, e := range resp.Events {
		w.lastRev = max(w.lastRev, e.Kv.ModRevision)
		ev, ok, err := w.transform(e)
		if err != nil {
			w.sendError(err)
			return false
		}
		if ok && !w.send(ev) {
			return false
		}
	}
	return true
}

// readInitial reads the state the initial events show: at startRev if set, else the latest.
// Errors: as interpretError (410 Expired for a compacted startRev, 503 when etcd is down).
func (w *watcher) readInitial() (*clientv3.GetResponse, error) {
	var ops []clientv3.OpOption
	if w.recursive {
		ops = append(ops, clientv3.WithPrefix())
	}
	if w.startRev > 0 {
		ops = append(ops, clientv3.WithRev(w.startRev))
	}
	resp, err := w.s.client.Get(w.ctx, w.etcdKey, ops...)
	if err != nil {
		return nil, interpretError(err, w.key, watchExpiredMessage, w.startRev)
	}
	return resp, nil
}

// sendInitialEvents sends ADDED for every object of the initial read matching the predicate
// and, for a streaming list, the initial-events-end BOOKMARK. It returns the revision of the
// read.
func (w *watcher) sendInitialEvents() (int64, error) {
	resp := w.initial
	w.initial = nil // the events hold what they need; let the rest go
	for _, kv := range resp.Kvs {
		obj, err := w.s.decodeNew(kv.Value, kv.ModRevision)
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
	rev := resp.Header.Revision
	if w.startRev > 0 {
		rev = w.startRev
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
		if cur, err = w.s.decodeFor(w.ctx, e.Kv.Value, rev); err != nil {
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
		if prev, err = w.s.decodeFor(w.ctx, e.PrevKv.Value, rev); err != nil {
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

// send delivers ev unless the watch has ended; it reports whether it did.
func (w *watcher) send(ev watch.Event) bool {
	select {
	case w.result <- ev:
		w.sent = true
		return true
	case <-w.ctx.Done():
		return false
	}
}

// sendError delivers err as an ERROR event holding a metav1.Status (410 Expired for a
// compacted revision), unless the watch was stopped.
func (w *watcher) sendError(err error) {
	if w.ctx.Err() != nil {
		return
	}
	w.send(watch.Event{Type: watch.Error, Object: errorStatus(err)})
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
	case storage.IsInvalidObj(err):
		st.Code, st.Reason = http.StatusBadRequest, metav1.StatusReasonBadRequest
	}
	return st
}
