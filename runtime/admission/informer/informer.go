package informer

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// RelistInterval is the wait before the cache lists and watches again after a failed list
// or the end of a watch.
const RelistInterval = time.Second

// Source is the storage a cache reads: a resource's list and watch (a registry.Store is one).
type Source interface {
	rest.Lister
	rest.Watcher
}

// Key names an object in the cache: its namespace ("" for cluster-scoped objects) and name.
type Key struct {
	Namespace, Name string
}

// Cache holds every object of one resource (internal objects, as the storage returns them;
// callers must not change them). Its zero value is not usable: use New. Safe for concurrent
// use.
type Cache struct {
	source Source

	mu       sync.RWMutex
	objects  map[Key]runtime.Object
	snapshot []runtime.Object // sorted by Key; nil after a change until List rebuilds it
	synced   atomic.Bool
	watching atomic.Bool // from a successful list until its watch ends
	// generation counts the changes applied (a list replaced, an event applied).
	generation atomic.Uint64
	syncedCh   chan struct{} // closed at the first sync
	syncOnce   sync.Once
}

// New returns a cache of the objects of source; it stays empty and unsynced until Run.
func New(source Source) *Cache {
	return &Cache{source: source, objects: map[Key]runtime.Object{}, syncedCh: make(chan struct{})}
}

// Run keeps the cache in sync with the source until ctx ends: a list, then a watch from the
// list's resourceVersion applying every event; a failed list or an ended watch is retried
// after RelistInterval (the objects read so far stay served, HasSynced stays true).
func (c *Cache) Run(ctx context.Context) {
	ctx = request.WithNamespace(ctx, "")
	for ctx.Err() == nil {
		_ = c.listAndWatch(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(RelistInterval):
		}
	}
}

// HasSynced reports whether the first list has been read.
func (c *Cache) HasSynced() bool { return c.synced.Load() }

// Watching reports whether the cache is following the storage now: between a successful
// list and the end of the watch that follows it. While it is not (after a failure, until the
// next list), the objects may be stale; callers that must not act on stale objects read the
// storage instead.
func (c *Cache) Watching() bool { return c.watching.Load() }

// WaitForSync waits until the first list has been read or ctx ends, and reports whether the
// cache is synced.
func (c *Cache) WaitForSync(ctx context.Context) bool {
	select {
	case <-c.syncedCh:
		return true
	case <-ctx.Done():
		return c.HasSynced()
	}
}

// Generation is a number that changes whenever the cache's content does; callers deriving
// state from List (compiled configurations) rebuild it when Generation moved.
func (c *Cache) Generation() uint64 { return c.generation.Load() }

// List returns every object, sorted by namespace and name. The slice and the objects are
// shared: the caller must change neither.
func (c *Cache) List() []runtime.Object {
	c.mu.RLock()
	snap := c.snapshot
	c.mu.RUnlock()
	if snap != nil {
		return snap
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snapshot == nil {
		keys := make([]Key, 0, len(c.objects))
		for k := range c.objects {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b Key) int {
			if a.Namespace != b.Namespace {
				return strings.Compare(a.Namespace, b.Namespace)
			}
			return strings.Compare(a.Name, b.Name)
		})
		c.snapshot = make([]runtime.Object, 0, len(keys))
		for _, k := range keys {
			c.snapshot = append(c.snapshot, c.objects[k])
		}
	}
	return c.snapshot
}

// Get returns the object of namespace and name, if the cache has it; it must not be changed.
func (c *Cache) Get(namespace, name string) (runtime.Object, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	obj, ok := c.objects[Key{namespace, name}]
	return obj, ok
}

// listAndWatch is one list and the watch that follows it, until the watch ends.
func (c *Cache) listAndWatch(ctx context.Context) error {
	list, err := c.source.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return err
	}
	w, err := c.source.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: lm.GetResourceVersion()})
	if err != nil {
		return err
	}
	defer w.Stop()
	c.replace(items)
	c.watching.Store(true)
	defer c.watching.Store(false)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			if ev.Type == watch.Error {
				return apierrors.FromObject(ev.Object)
			}
			c.apply(ev)
		}
	}
}

// replace sets the cache to items and marks it synced.
func (c *Cache) replace(items []runtime.Object) {
	objects := make(map[Key]runtime.Object, len(items))
	for _, item := range items {
		if k, ok := keyOf(item); ok {
			objects[k] = item
		}
	}
	c.mu.Lock()
	c.objects, c.snapshot = objects, nil
	c.mu.Unlock()
	c.synced.Store(true)
	c.generation.Add(1)
	c.syncOnce.Do(func() { close(c.syncedCh) })
}

// apply records one watch event (bookmarks change nothing).
func (c *Cache) apply(ev watch.Event) {
	k, ok := keyOf(ev.Object)
	if !ok || (ev.Type != watch.Added && ev.Type != watch.Modified && ev.Type != watch.Deleted) {
		return
	}
	c.mu.Lock()
	if ev.Type == watch.Deleted {
		delete(c.objects, k)
	} else {
		c.objects[k] = ev.Object
	}
	c.snapshot = nil
	c.mu.Unlock()
	c.generation.Add(1)
}

func keyOf(obj runtime.Object) (Key, bool) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return Key{}, false
	}
	return Key{m.GetNamespace(), m.GetName()}, true
}
