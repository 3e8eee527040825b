package garbagecollector

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/request"
)

// listPageSize is the page size of a monitor's lists, kube-apiserver's watch cache's for the
// lists that fill it (storageWatchListPageSize): a list that storage serves (a watch cache
// serves a list at "0" whole, once synced) holds one page of decoded objects at a time, not
// every object of the resource. A server restarting on 100,000 stored Databases, its caches
// not synced yet, held them all decoded in one list, over 500 MB. (client-go's pager reads
// 500 at a time; from etcd that is 200 reads, each counting the keys left.)
const listPageSize = 10000

// The waits of a monitor between a failed list or watch and the next list: doubling from
// minRetry up to maxRetry, as client-go's reflector backs off (800ms to 30s).
const (
	minRetry = 800 * time.Millisecond
	maxRetry = 30 * time.Second
)

// monitor is the informer of one resource, as a monitor of kube's GraphBuilder (a client-go
// metadata informer without resync): one goroutine lists the resource's own Storage, then
// watches it from the list's resourceVersion, keeping the metadata of every object it has
// seen (objectMetadata, by namespace/name), and sends the graph builder an add, update (with
// the old metadata) or delete event per change, as the informer's handlers got them. A watch
// that ends is watched again from the last resourceVersion seen; one that fails (410 Expired
// after a compaction, or any other error) is followed by a fresh list, whose difference with
// what was kept is sent as the informer's relist sends it: an update for every object listed
// that was kept, an add for every new one, a delete for every one gone.
//
// It is what a client-go SharedIndexInformer over the storage was, without the informer's
// machinery: one goroutine where the informer ran nine (reflector, resync, DeltaFIFO,
// processor and listener) and a map where it kept a DeltaFIFO, an indexer and a ring buffer
// of 1024 notifications; in a server at rest, 20 resources' monitors held 1.7 MB of stacks
// and buffers.
type monitor struct {
	resource Resource
	changes  func(*event)
	log      *slog.Logger
	// kind and apiVersion are shared by every event of the resource.
	kind, apiVersion string
	// pageSize is the limit of each page of its lists (listPageSize).
	pageSize int64
	// synced is set once the first list has been sent.
	synced atomic.Bool
	stop   context.CancelFunc
	done   chan struct{}
}

// newMonitor builds the monitor of r, sending its events to changes and its errors to log;
// start it with run.
func newMonitor(r Resource, changes func(*event), log *slog.Logger) *monitor {
	return &monitor{resource: r, changes: changes, log: log, kind: r.Kind, apiVersion: r.GroupVersion().String(),
		pageSize: listPageSize}
}

// hasSynced reports whether the monitor has sent the events of its first list.
func (m *monitor) hasSynced() bool { return m.synced.Load() }

// run starts the monitor until ctx ends or halt is called.
func (m *monitor) run(ctx context.Context) {
	ctx, m.stop = context.WithCancel(ctx)
	m.done = make(chan struct{})
	go func() {
		defer close(m.done)
		m.listAndWatch(ctx)
	}()
}

// halt stops the monitor and waits until it has.
func (m *monitor) halt() {
	if m.stop != nil {
		m.stop()
		<-m.done
	}
}

// listAndWatch lists, then watches, until ctx ends, as the package doc says. It reads with
// request.WithReadOnlyResults (it copies the metadata it keeps), so a watch cache hands it its
// objects as shallow copies instead of a deep copy per object and event, and with
// request.WithTransientReads, so that its lists do not leave every object of a watch cache
// decoded (a relist after a failed watch reads them all).
func (m *monitor) listAndWatch(ctx context.Context) {
	ctx = request.WithTransientReads(request.WithReadOnlyResults(request.WithNamespace(ctx, "")))
	known := map[string]*objectMetadata{}
	retry := minRetry
	rv, first := "", true
	for ctx.Err() == nil {
		var err error
		if rv == "" {
			// The first list may be served from a watch cache as it is ("0", as the
			// informer's first list); a relist after a failure reads the latest state.
			listRV := ""
			if first {
				listRV = "0"
			}
			if rv, err = m.relist(ctx, listRV, known); err == nil {
				first = false
				m.synced.Store(true)
				retry = minRetry
			}
		}
		if err == nil {
			rv, err = m.watch(ctx, rv, known)
		}
		if err != nil && ctx.Err() == nil {
			m.log.Warn("garbage collector: cannot watch", "resource", m.resource.GroupVersionResource.String(), "err", err)
			rv = ""
			select {
			case <-ctx.Done():
			case <-time.After(retry):
			}
			retry = min(2*retry, maxRetry)
		}
	}
}

// relist lists the resource at resourceVersion rv, in pages of m.pageSize, and sends what
// changed since known (which it updates): an update for every object listed that known
// held, an add for every other one, then a delete for every object of known not listed. It
// returns the list's resourceVersion.
func (m *monitor) relist(ctx context.Context, rv string, known map[string]*objectMetadata) (string, error) {
	opts := &metainternalversion.ListOptions{ResourceVersion: rv, Limit: m.pageSize}
	listed := make(map[string]bool, len(known))
	listRV := ""
	for {
		list, err := m.resource.Storage.List(ctx, opts)
		if err != nil {
			return "", err
		}
		lm, err := meta.ListAccessor(list)
		if err != nil {
			return "", err
		}
		if listRV == "" {
			listRV = lm.GetResourceVersion() // every page's: the pages are of one snapshot
		}
		if err := m.observePage(list, listed, known); err != nil {
			return "", err
		}
		if lm.GetContinue() == "" {
			break
		}
		opts = &metainternalversion.ListOptions{Continue: lm.GetContinue(), Limit: m.pageSize}
	}
	for k, o := range known {
		if !listed[k] {
			delete(known, k)
			m.changes(&event{eventType: deleteEvent, obj: o, apiVersion: m.apiVersion, kind: m.kind})
		}
	}
	if listRV == "" {
		return "", fmt.Errorf("the list of %s has no resourceVersion", m.resource.GroupVersionResource)
	}
	return listRV, nil
}

// observePage sends the add or update of every object of a listed page (observe) and
// records its key in listed.
func (m *monitor) observePage(list runtime.Object, listed map[string]bool, known map[string]*objectMetadata) error {
	return meta.EachListItem(list, func(obj runtime.Object) error {
		acc, err := meta.Accessor(obj)
		if err != nil {
			return err
		}
		o := newObjectMetadata(acc, false)
		k := key(o)
		listed[k] = true
		m.observe(k, o, known)
		return nil
	})
}

// watch watches the resource from resourceVersion rv and sends its changes until the watch
// ends (it returns the last resourceVersion seen, to watch from again) or fails (an error;
// the caller lists again) or ctx ends.
func (m *monitor) watch(ctx context.Context, rv string, known map[string]*objectMetadata) (string, error) {
	w, err := m.resource.Storage.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		return rv, err
	}
	defer w.Stop()
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return rv, nil
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return rv, nil
		}
		if ev.Type == watch.Error {
			return rv, apierrors.FromObject(ev.Object)
		}
		acc, err := meta.Accessor(ev.Object)
		if err != nil {
			return rv, err
		}
		if ev.Type == watch.Bookmark {
			rv = acc.GetResourceVersion()
			continue
		}
		o := newObjectMetadata(acc, false)
		switch k := key(o); ev.Type {
		case watch.Added, watch.Modified:
			m.observe(k, o, known)
		case watch.Deleted:
			delete(known, k)
			m.changes(&event{eventType: deleteEvent, obj: o, apiVersion: m.apiVersion, kind: m.kind})
		}
		rv = o.resourceVersion
	}
}

// observe keeps o under k in known and sends an update from the metadata kept before, or an
// add when there was none.
func (m *monitor) observe(k string, o *objectMetadata, known map[string]*objectMetadata) {
	old := known[k]
	known[k] = o
	if old == nil {
		m.changes(&event{eventType: addEvent, obj: o, apiVersion: m.apiVersion, kind: m.kind})
		return
	}
	m.changes(&event{eventType: updateEvent, obj: o, oldObj: old, apiVersion: m.apiVersion, kind: m.kind})
}

// key is o's namespace/name, or its name when it has no namespace (client-go's
// MetaNamespaceKeyFunc).
func key(o *objectMetadata) string {
	if o.namespace == "" {
		return o.name
	}
	return o.namespace + "/" + o.name
}
