package cacher

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"reflect"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// Defaults of Config.
const (
	// DefaultHistorySize is how many events a cache keeps for watches to start from when
	// Config.HistorySize is 0 (--watch-cache-sizes sets it per resource).
	DefaultHistorySize = 1000
	// DefaultHistoryBytes bounds the estimated size of the objects the history holds (the
	// events' new and previous states) when Config.HistoryBytes is 0: 8 MiB.
	DefaultHistoryBytes = 8 << 20
)

// Config configures a Cacher.
type Config struct {
	// Storage is the storage the cache follows and writes go to; required. When it
	// implements storage.RevisionReader, consistent reads (resourceVersion "") are served
	// from the cache once it has reached the revision storage reports, and when it also
	// implements storage.ProgressRequester, waiting reads ask its watch for progress;
	// otherwise consistent reads go to Storage.
	Storage storage.Interface
	// Resource names the resource in logs.
	Resource schema.GroupResource
	// NewFunc returns an empty object of the resource (the object of BOOKMARK events);
	// required.
	NewFunc func() runtime.Object
	// HistorySize is the most events the cache keeps (0: DefaultHistorySize); HistoryBytes
	// the most estimated bytes of objects they hold (0: DefaultHistoryBytes). A watch from a
	// resourceVersion older than the history fails with 410 Expired.
	HistorySize, HistoryBytes int
	// CompactedRevision, when not nil, returns the revision storage was last compacted at: a
	// list at an older revision (Exact, or a continue token) goes to storage (which answers
	// 410 Expired), as etcd would, though the history still has the state.
	CompactedRevision func() int64
	// Logger receives the cache's relists and watch failures; nil means slog.Default().
	Logger *slog.Logger
	// Metrics, when not nil, counts the cache's watchers in apiserver_registered_watchers.
	Metrics *metrics.Metrics
	// Start, when not nil, holds the cache's first list back until it is closed: a server
	// closes it once every API group is built, since decoding reads the scheme those builds
	// still write to. Until then every call goes to storage, as before a sync.
	Start <-chan struct{}
	// NoWatchProgress says storage's watch cannot report progress (an etcd before 3.4.31 or
	// 3.5.13, or another etcd API without progress notifications): consistent reads go to
	// Storage, as kube-apiserver's when its feature check finds no RequestWatchProgress,
	// rather than wait for an event that may not come. See etcd3.SupportsWatchProgress.
	NoWatchProgress bool
	// CoolInterval is how often the cache makes cold the objects not read since its
	// previous pass (0: DefaultCoolInterval; negative: never): it keeps only their JSON,
	// compressed, and decodes it again when they are next read, so an object not read for
	// between one and two intervals costs its compressed bytes instead of its decoded
	// values. An object new to the cache is looked at sooner, within a tenth of
	// CoolInterval after it was cached: made cold unless it was read by then, so that a
	// burst of creates does not keep every object it wrote decoded for seconds.
	// Objects of a type without a generated JSON codec stay decoded.
	CoolInterval time.Duration
}

// Cacher is a storage.Interface serving reads and watches from memory, as kube-apiserver's
// watch cache (k8s.io/apiserver/pkg/storage/cacher): writes go to Config.Storage; one watch
// of Config.Storage keeps the cache current. See the package documentation for which reads
// the cache serves. Safe for concurrent use.
type Cacher struct {
	storage   storage.Interface
	gr        schema.GroupResource
	newFunc   func() runtime.Object
	revisions storage.RevisionReader // nil: consistent reads go to storage
	progress  *progressRequester     // nil: no progress requests
	compacted func() int64
	log       *slog.Logger
	metrics   *metrics.Metrics
	gvk       schema.GroupVersionKind // the watchers' metric label

	state    *state
	watchers *watcherSet
	sizes    sizer     // estimates the objects' sizes (the reflector's)
	interned *interner // shares equal metadata values among the objects
	freezer  *freezer  // makes objects cold and decodes them again; nil: they stay decoded
	coolMu   sync.Mutex
	cooled   chan struct{} // closed when the cooler has stopped
	young    youngEntries  // the objects cached new since the cooler's last young pass

	ctx    context.Context // ends with Stop
	cancel context.CancelFunc
	done   chan struct{} // closed when the reflector has stopped
	stop   sync.Once
	start  <-chan struct{} // Config.Start
}

var _ storage.Interface = (*Cacher)(nil)

// New returns a Cacher over cfg.Storage and starts filling it (in a goroutine, once
// cfg.Start is closed: a list, then a watch from the list's revision). Until it is synced, and whenever its watch has failed and
// it relists, every call goes to storage. Stop ends it. Errors: cfg.Storage or cfg.NewFunc
// is nil.
func New(cfg Config) (*Cacher, error) {
	if cfg.Storage == nil || cfg.NewFunc == nil {
		return nil, fmt.Errorf("cannot cache %s without a storage and an object constructor", cfg.Resource)
	}
	if cfg.HistorySize <= 0 {
		cfg.HistorySize = DefaultHistorySize
	}
	if cfg.HistoryBytes <= 0 {
		cfg.HistoryBytes = DefaultHistoryBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.CoolInterval == 0 {
		cfg.CoolInterval = DefaultCoolInterval
	}
	c := &Cacher{
		storage:   cfg.Storage,
		gr:        cfg.Resource,
		newFunc:   cfg.NewFunc,
		compacted: cfg.CompactedRevision,
		log:       cfg.Logger.With("resource", cfg.Resource.String()),
		state:     newState(cfg.HistorySize, cfg.HistoryBytes),
		watchers:  newWatcherSet(),
		interned:  newInterner(),
		done:      make(chan struct{}),
		metrics:   cfg.Metrics,
		gvk:       watcherKind(cfg.Resource, cfg.NewFunc()),
		start:     cfg.Start,
		cooled:    make(chan struct{}),
	}
	c.freezer = newFreezer(cfg.NewFunc, c.interned)
	if !cfg.NoWatchProgress {
		c.revisions, _ = cfg.Storage.(storage.RevisionReader)
	}
	if u, ok := cfg.Storage.(storage.DecodedObjectsUser); ok {
		u.UseDecodedObjects(c)
	}
	c.ctx, c.cancel = context.WithCancel(watchContext(context.Background()))
	if pr, ok := cfg.Storage.(storage.ProgressRequester); ok && c.revisions != nil {
		c.progress = newProgressRequester(c.ctx, pr)
	}
	if c.freezer != nil && cfg.CoolInterval > 0 {
		c.young.interval = max(cfg.CoolInterval/youngPasses, 1)
	}
	go c.run()
	if c.hasCooler() {
		c.cool()
	} else {
		close(c.cooled)
	}
	return c, nil
}

// DecodedObject implements storage.DecodedObjects for the storage under the cache: the
// object the cache holds at key, when it is the one stored at revision rev. It answers
// whether or not the cache is synced: one revision of a key is one value.
func (c *Cacher) DecodedObject(key string, rev int64) (runtime.Object, bool) {
	return c.state.object(key, rev)
}

// StorageVersion implements storage.Versioned: the cached storage's version.
func (c *Cacher) StorageVersion() schema.GroupVersion { return storage.StorageVersionOf(c.storage) }

// Stop stops the cache: its watchers are closed, and from then on every call goes to
// storage. It waits for the cache's goroutines (the reflector, the cooler); it may be
// called more than once.
func (c *Cacher) Stop() {
	c.stop.Do(c.cancel)
	<-c.done
	<-c.cooled
}

// Synced reports whether the cache follows storage now (it has listed and its watch runs).
func (c *Cacher) Synced() bool {
	c.state.mu.RLock()
	defer c.state.mu.RUnlock()
	return c.state.synced
}

// Create implements storage.Interface: it goes to storage.
func (c *Cacher) Create(ctx context.Context, key string, obj, out runtime.Object) error {
	return c.storage.Create(ctx, key, obj, out)
}

// GuaranteedUpdate implements storage.Interface: it goes to storage.
func (c *Cacher) GuaranteedUpdate(ctx context.Context, key string, dest runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	return c.storage.GuaranteedUpdate(ctx, key, dest, ignoreNotFound, preconditions, tryUpdate)
}

// Delete implements storage.Interface: it goes to storage.
func (c *Cacher) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc) error {
	return c.storage.Delete(ctx, key, out, preconditions, validateDeletion)
}

// Get implements storage.Interface as kube-apiserver's cacher: resourceVersion "" (the
// latest state, read linearizably) goes to storage; "0" is served from the cache at once,
// N once the cache has reached revision N (after freshTimeout, storage answers instead).
func (c *Cacher) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	if opts.ResourceVersion == "" {
		return c.storage.Get(ctx, key, opts, out)
	}
	k, err := c.cleanKey(key, false)
	if err != nil {
		return err
	}
	rev, err := storage.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return err
	}
	v, err := c.state.waitFresh(ctx, rev, c.askProgress)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return c.storage.Get(ctx, key, opts, out)
	}
	e, found := v.objects.Get(&entry{key: k})
	if !found {
		if opts.IgnoreNotFound {
			return setInto(out, c.newFunc())
		}
		return storage.NewKeyNotFoundError(key, v.rev)
	}
	return setInto(out, handOut(ctx, e.object()))
}

// askProgress asks storage's watch for progress, when it can, until the returned function
// is called.
func (c *Cacher) askProgress() (done func()) {
	if c.progress == nil {
		return func() {}
	}
	return c.progress.wait()
}

// cleanKey validates key as etcd3 does (no "." or ".." segment: InvalidObj) and cleans it;
// a recursive key ends with "/".
func (c *Cacher) cleanKey(key string, recursive bool) (string, error) {
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return "", storage.NewInvalidObjError(key, fmt.Sprintf("invalid key %q for %s: it may not contain %q", key, c.gr, seg))
		}
	}
	k := path.Clean("/" + key)
	if (recursive || strings.HasSuffix(key, "/")) && k != "/" {
		k += "/"
	}
	return k, nil
}

// handOut returns obj for a caller: obj itself (the caller copies its top-level struct
// into its own) when ctx is marked by request.WithReadOnlyResults and obj's type has
// metadata of its own in such a copy; otherwise a deep copy.
func handOut(ctx context.Context, obj runtime.Object) runtime.Object {
	if request.ReadOnlyResults(ctx) && storage.Shareable(obj) {
		return obj
	}
	return obj.DeepCopyObject()
}

// watcherKind is the kind apiserver_registered_watchers counts watchers of obj's resource
// under, as etcd3 labels it: the group and kind, no version (storage watches the internal
// version, whatever the client asked for); a custom resource's object names its kind.
func watcherKind(gr schema.GroupResource, obj runtime.Object) schema.GroupVersionKind {
	gvk := schema.GroupVersionKind{Group: gr.Group, Kind: reflect.Indirect(reflect.ValueOf(obj)).Type().Name()}
	if u, ok := obj.(runtime.Unstructured); ok {
		gvk.Kind = u.GetObjectKind().GroupVersionKind().Kind
	}
	return gvk
}

// setInto copies *src into *dst; both must be pointers to the same struct type.
func setInto(dst, src runtime.Object) error {
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(src)
	if dv.Kind() != reflect.Pointer || dv.IsNil() || dv.Type() != sv.Type() {
		return storage.NewInternalError(fmt.Sprintf("cannot read into %T: the cache holds %T", dst, src))
	}
	dv.Elem().Set(sv.Elem())
	return nil
}
