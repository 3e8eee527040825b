package cacher

import (
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// BaseFactory creates the storages a StorageFactory caches: *etcd3.StorageFactory.
type BaseFactory interface {
	// NewStorage is registry.StorageFactory's.
	NewStorage(resource schema.GroupResource, storageVersion schema.GroupVersion, scheme *runtime.Scheme,
		newFunc func() runtime.Object) (storage.Interface, error)
	// NewStorageWithCodec is customresource.StorageFactory's.
	NewStorageWithCodec(resource schema.GroupResource, codec runtime.Codec, newFunc func() runtime.Object) (storage.Interface, error)
}

// StorageFactory is a registry.StorageFactory and customresource.StorageFactory that puts a
// Cacher in front of every storage Base creates, as kube-apiserver's storage factory does
// with --watch-cache: typed kinds, custom resources and built-ins alike. Stop stops every
// cache. Safe for concurrent use.
type StorageFactory struct {
	// Base creates the storages; required.
	Base BaseFactory
	// HistorySizes is the history size (events) of the resources named, as kube-apiserver's
	// --watch-cache-sizes; 0 stores the resource without a cache. Others get DefaultHistorySize.
	HistorySizes map[schema.GroupResource]int
	// CompactedRevision is every cache's Config.CompactedRevision (may be nil).
	CompactedRevision func() int64
	// Logger is every cache's Config.Logger (may be nil).
	Logger *slog.Logger
	// Metrics is every cache's Config.Metrics (may be nil).
	Metrics *metrics.Metrics
	// Start is every cache's Config.Start (may be nil).
	Start <-chan struct{}
	// NoWatchProgress is every cache's Config.NoWatchProgress.
	NoWatchProgress bool

	mu      sync.Mutex
	cachers []*Cacher
	// custom is the cache of each custom resource with the codec it was made with: a new
	// storage of the resource with an equal codec (its definition changed, not its storage)
	// shares the cache; with another codec, the old cache is stopped.
	custom  map[schema.GroupResource]customCache
	stopped bool
}

// customCache is the cache of a custom resource and the codec it decodes with.
type customCache struct {
	cacher *Cacher
	codec  runtime.Codec
}

// NewStorage returns Base's storage of resource behind a Cacher (or Base's alone when
// HistorySizes turns the cache off). Errors: Base's, or the factory is stopped.
func (f *StorageFactory) NewStorage(resource schema.GroupResource, storageVersion schema.GroupVersion,
	scheme *runtime.Scheme, newFunc func() runtime.Object) (storage.Interface, error) {
	st, err := f.Base.NewStorage(resource, storageVersion, scheme, newFunc)
	if err != nil {
		return nil, err
	}
	return f.cache(resource, st, newFunc, nil)
}

// NewStorageWithCodec returns Base's storage of a custom resource behind a Cacher; a
// storage of the same resource with a codec reflect.DeepEqual to the last one's shares its
// cache (a CustomResourceDefinition update that keeps the storage), otherwise the last
// cache is stopped (its watchers are closed and resume on the new one). Errors: as NewStorage.
func (f *StorageFactory) NewStorageWithCodec(resource schema.GroupResource, codec runtime.Codec,
	newFunc func() runtime.Object) (storage.Interface, error) {
	f.mu.Lock()
	prev, ok := f.custom[resource]
	f.mu.Unlock()
	if ok && reflect.DeepEqual(prev.codec, codec) {
		return prev.cacher, nil
	}
	st, err := f.Base.NewStorageWithCodec(resource, codec, newFunc)
	if err != nil {
		return nil, err
	}
	return f.cache(resource, st, newFunc, codec)
}

// cache returns st behind a new Cacher, remembered for Stop (and, with a codec, as the
// custom resource's cache).
func (f *StorageFactory) cache(resource schema.GroupResource, st storage.Interface, newFunc func() runtime.Object,
	codec runtime.Codec) (storage.Interface, error) {
	size, sized := f.HistorySizes[resource]
	if sized && size == 0 {
		return st, nil
	}
	c, err := New(Config{Storage: st, Resource: resource, NewFunc: newFunc, HistorySize: size,
		CompactedRevision: f.CompactedRevision, Logger: f.Logger, Metrics: f.Metrics, Start: f.Start,
		NoWatchProgress: f.NoWatchProgress})
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		go c.Stop()
		return nil, fmt.Errorf("cannot cache %s: the storage factory is stopped", resource)
	}
	f.cachers = append(f.cachers, c)
	if codec != nil {
		if f.custom == nil {
			f.custom = map[schema.GroupResource]customCache{}
		}
		if prev, ok := f.custom[resource]; ok {
			f.cachers = slices.DeleteFunc(f.cachers, func(x *Cacher) bool { return x == prev.cacher })
			go prev.cacher.Stop()
		}
		f.custom[resource] = customCache{cacher: c, codec: codec}
	}
	return c, nil
}

// Stop stops every cache the factory made and waits for them.
func (f *StorageFactory) Stop() {
	f.mu.Lock()
	f.stopped = true
	cachers := f.cachers
	f.mu.Unlock()
	for _, c := range cachers {
		c.Stop()
	}
}
