package cacher

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// listPageSize is the page size of the lists that fill a cache, kube-apiserver's
// storageWatchListPageSize (a variable for tests).
var listPageSize int64 = 10000

// Timing of the reflector.
const (
	// retryBackoff is the wait before a failed list or watch of storage is tried again.
	retryBackoff = 100 * time.Millisecond
	// maxRetryBackoff bounds the doubling of retryBackoff over consecutive failures.
	maxRetryBackoff = 10 * time.Second
)

// bookmarkTick is how often the reflector sends the BOOKMARKs that are due.
var bookmarkTick = time.Second

// errExpired means storage no longer has the events after the cache's revision: relist.
var errExpired = errors.New("the watch cache's revision was compacted")

// run fills the cache and keeps it current until Stop: a list of everything, then a watch
// from the list's revision, restarted from the last revision seen whenever it ends; when
// storage no longer has that revision (410), the cache closes its watchers (they resume from
// their resourceVersion: the new history starts at the new list's, so an older one gets
// 410 and relists, as with kube-apiserver's cache) and lists again.
func (c *Cacher) run() {
	defer close(c.done)
	defer c.watchers.closeAll()
	defer c.state.clear()
	if c.start != nil {
		select {
		case <-c.start:
		case <-c.ctx.Done():
			return
		}
	}
	backoff := retryBackoff
	for c.ctx.Err() == nil {
		rev, err := c.list()
		if err != nil {
			if c.ctx.Err() == nil {
				c.log.Warn("watch cache cannot list storage", "err", err, "retryIn", backoff)
				c.sleep(backoff)
				backoff = min(2*backoff, maxRetryBackoff)
			}
			continue
		}
		backoff = retryBackoff
		c.follow(rev)
		c.state.unsync()
		c.watchers.closeAll()
		if c.ctx.Err() == nil {
			c.log.Info("watch cache relists: storage no longer has its revision")
		}
	}
}

// sleep waits d or until Stop.
func (c *Cacher) sleep(d time.Duration) {
	select {
	case <-c.ctx.Done():
	case <-time.After(d):
	}
}

// objectList is the list the cache reads storage into: any kind's objects.
type objectList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []runtime.Object
}

// DeepCopyObject implements runtime.Object (a shallow copy: the list is never shared).
func (l *objectList) DeepCopyObject() runtime.Object {
	out := *l
	out.Items = append([]runtime.Object(nil), l.Items...)
	return &out
}

// list reads every object of the resource from storage, in pages at one revision, into the
// state, and returns the revision. With a cooler, the objects of every page but the last are
// made cold before the next page is read (freezeListed).
func (c *Cacher) list() (int64, error) {
	var entries []*entry
	opts := storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: listPageSize}}
	var rev int64
	for {
		page := &objectList{}
		if err := c.storage.GetList(c.ctx, "/", opts, page); err != nil {
			return 0, fmt.Errorf("cannot list %s: %w", c.gr, err)
		}
		if rev == 0 {
			var err error
			if rev, err = strconv.ParseInt(page.ResourceVersion, 10, 64); err != nil {
				return 0, fmt.Errorf("cannot list %s: resourceVersion %q: %w", c.gr, page.ResourceVersion, err)
			}
		}
		for _, obj := range page.Items {
			e, err := c.newEntry(obj)
			if err != nil {
				return 0, err
			}
			entries = append(entries, e)
		}
		if page.Continue == "" {
			break
		}
		c.freezeListed(entries[len(entries)-len(page.Items):])
		opts.Predicate.Continue = page.Continue
	}
	c.state.replace(entries, rev)
	return rev, nil
}

// freezeListed makes cold the entries of a listed page, when the cache has a cooler.
//
// Without it a list would hold every object decoded until the cooler's second full pass
// (about 4.5 KB each for example-api's Database, against about 100 bytes cold), for the
// minute the paced passes take: example-apiserver restarting on 500,000 stored Databases
// peaked at 4.7 GB of anonymous memory, where its live heap at rest is about 500 MB; with
// it (and the garbage collector's paged lists), 1.3 GB. A list holds at most one page
// decoded. The cost, making each object cold (about 25 µs), is paid on the list, while
// reads go to storage until the cache is synced; the last page stays decoded, so a cache of
// one page (10,000 objects) syncs as fast as before.
func (c *Cacher) freezeListed(entries []*entry) {
	if c.hasCooler() && len(entries) > 0 {
		c.freezeAll(entries, nil)
	}
}

// newEntry returns the cache entry of obj, read from storage: its key is "/<ns>/<name>" (or
// "/<name>"), as registry.Store keys objects. obj's metadata values are interned first.
func (c *Cacher) newEntry(obj runtime.Object) (*entry, error) {
	c.interned.intern(obj)
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("cannot cache %T: %w", obj, err)
	}
	rev, err := strconv.ParseInt(acc.GetResourceVersion(), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("cannot cache %s %q: resourceVersion %q: %w", c.gr, acc.GetName(), acc.GetResourceVersion(), err)
	}
	key := "/" + acc.GetName()
	if ns := acc.GetNamespace(); ns != "" {
		key = "/" + ns + key
	}
	return newEntryOf(key, obj, rev, c.sizes.size(obj), c.freezer), nil
}

// follow watches storage from rev, applying and dispatching every event, until Stop or
// until storage no longer has the revision to resume from.
func (c *Cacher) follow(rev int64) {
	backoff := retryBackoff
	for c.ctx.Err() == nil {
		opts := storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatInt(rev, 10), ProgressNotify: true}
		w, err := c.storage.Watch(c.ctx, "/", opts)
		if err == nil {
			var progressed bool
			rev, progressed, err = c.consume(w, rev)
			w.Stop()
			if progressed {
				backoff = retryBackoff
			}
		}
		if errors.Is(err, errExpired) || storage.IsExpired(err) {
			return
		}
		if c.ctx.Err() == nil {
			if err != nil {
				c.log.Warn("watch cache's watch of storage failed", "err", err, "retryIn", backoff)
			}
			c.sleep(backoff)
			backoff = min(2*backoff, maxRetryBackoff)
		}
	}
}

// consume applies the events of w until it ends, and sends the BOOKMARKs that fall due. It
// returns the revision reached, whether any event came, and errExpired when w ended with
// a 410, or the error of another ERROR event.
func (c *Cacher) consume(w watch.Interface, rev int64) (int64, bool, error) {
	ticker := time.NewTicker(bookmarkTick)
	defer ticker.Stop()
	progressed := false
	for {
		select {
		case <-c.ctx.Done():
			return rev, progressed, nil
		case now := <-ticker.C:
			c.watchers.bookmark(now, c.state.revision())
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rev, progressed, nil
			}
			progressed = true
			switch ev.Type {
			case watch.Error:
				if st, ok := ev.Object.(*metav1.Status); ok && st.Code == http.StatusGone {
					return rev, progressed, errExpired
				}
				return rev, progressed, fmt.Errorf("watch of %s ended: %v", c.gr, ev.Object)
			case watch.Bookmark:
				if r, err := revisionOf(ev.Object); err == nil {
					c.state.progress(r)
					rev = max(rev, r)
				}
			default:
				e, err := c.newEntry(ev.Object)
				if err != nil {
					return rev, progressed, err
				}
				c.apply(ev.Type, e)
				rev = max(rev, e.rev)
			}
		}
	}
}

// apply applies the change of e's key to e (typ Deleted: e holds the deleted state) and
// dispatches it to the watchers.
func (c *Cacher) apply(typ watch.EventType, e *entry) {
	ev := &event{typ: typ, key: e.key, ns: namespaceOf(e.key), cur: e, rev: e.rev, size: e.size}
	c.state.apply(ev)
	if ev.typ == watch.Added {
		c.addYoung(e)
	}
	c.watchers.dispatch(ev)
}

// revisionOf returns obj's resourceVersion as a number.
func revisionOf(obj runtime.Object) (int64, error) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(acc.GetResourceVersion(), 10, 64)
}
