package registry

import (
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// filteredWatch passes the events of in whose objects match, as kube-apiserver's watch
// cache filters a watch by its selectors. It keeps whether each object it has seen (by
// namespace and name, seeded from a list at the watch's start) matched, so an object that
// stops matching is sent DELETED and one that starts matching ADDED; an object it has not
// seen passes when it matches, with its event's type. The list is the present, while a watch
// from a client's resourceVersion replays what followed it: an event at or before the list's
// resourceVersion (when both are integers) is one the list already reflects, and passes when
// it matches with its own type (the seed would make an object that started matching in it
// MODIFIED, as if the client had it), leaving the seed as it is. BOOKMARK and ERROR events
// pass unchanged; an object that cannot be matched ends the watch with an ERROR event.
type filteredWatch struct {
	in    watch.Interface
	match func(runtime.Object) (bool, error)
	// matched is, per object seen ("namespace/name"), whether it matched.
	matched map[string]bool
	// seedRV is the resourceVersion of the list matched was seeded from (0: unknown).
	seedRV int64
	out    chan watch.Event
	stop   chan struct{}
	once   sync.Once
}

// newFilteredWatch starts filtering in, knowing whether each of seed (the objects at the
// watch's start, listed at resourceVersion seedRV, 0 when unknown) matched; Stop stops in too.
func newFilteredWatch(in watch.Interface, match func(runtime.Object) (bool, error), seed []runtime.Object, seedRV int64) *filteredWatch {
	w := &filteredWatch{in: in, match: match, matched: map[string]bool{}, seedRV: seedRV, out: make(chan watch.Event), stop: make(chan struct{})}
	for _, obj := range seed {
		if m, err := meta.Accessor(obj); err == nil {
			ok, _ := match(obj)
			w.matched[m.GetNamespace()+"/"+m.GetName()] = ok
		}
	}
	go w.run()
	return w
}

// ResultChan returns the filtered events; it is closed when in's is or Stop is called.
func (w *filteredWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop stops the watch and in.
func (w *filteredWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.in.Stop()
	})
}

func (w *filteredWatch) run() {
	defer close(w.out)
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-w.stop:
			return
		case ev, ok = <-w.in.ResultChan():
			if !ok {
				return
			}
		}
		out, pass := w.filter(ev)
		if !pass {
			continue
		}
		select {
		case w.out <- out:
		case <-w.stop:
			return
		}
		if out.Type == watch.Error {
			return
		}
	}
}

// filter returns the event to send for ev, if any, updating w.matched.
func (w *filteredWatch) filter(ev watch.Event) (watch.Event, bool) {
	if ev.Type != watch.Added && ev.Type != watch.Modified && ev.Type != watch.Deleted {
		return ev, true
	}
	m, err := meta.Accessor(ev.Object)
	if err != nil {
		return watch.Event{Type: watch.Error, Object: internalErrorStatus(err)}, true
	}
	key := m.GetNamespace() + "/" + m.GetName()
	match, err := w.match(ev.Object)
	if err != nil {
		return watch.Event{Type: watch.Error, Object: internalErrorStatus(err)}, true
	}
	if ev.Type != watch.Deleted && w.seedRV > 0 {
		if rv, err := strconv.ParseInt(m.GetResourceVersion(), 10, 64); err == nil && rv <= w.seedRV {
			return ev, match // replayed: the seed is already at or past it
		}
	}
	was, seen := w.matched[key]
	if ev.Type == watch.Deleted {
		delete(w.matched, key)
		return ev, was || (!seen && match)
	}
	w.matched[key] = match
	switch {
	case !seen:
		return ev, match
	case match && !was:
		return watch.Event{Type: watch.Added, Object: ev.Object}, true
	case !match && was:
		return watch.Event{Type: watch.Deleted, Object: ev.Object}, true
	case match:
		return watch.Event{Type: watch.Modified, Object: ev.Object}, true
	}
	return ev, false
}

// internalErrorStatus is err as the Status of a 500 InternalError watch ERROR event.
func internalErrorStatus(err error) *metav1.Status {
	s := apierrors.NewInternalError(err).Status()
	return &s
}
