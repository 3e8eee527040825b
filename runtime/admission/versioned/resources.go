package versioned

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// Resources is the server's map of resources for matchPolicy Equivalent, as kube's
// EquivalentResourceRegistry: two group/version/resources are equivalent when the same
// storage serves them (a kind served in several versions), and each has a kind. It
// implements matching.Resources. Safe for concurrent use; Add may be called at any time.
type Resources struct {
	mu sync.RWMutex
	// byStorage lists the resources (with subresource) one storage serves, in the order
	// they were added.
	byStorage map[rest.Storage][]resourceKey
	storageOf map[resourceKey]rest.Storage
	kinds     map[resourceKey]schema.GroupVersionKind
	// resourceOf maps a kind to the first resource added serving it.
	resourceOf map[schema.GroupVersionKind]schema.GroupVersionResource
}

// resourceKey is a resource and subresource.
type resourceKey struct {
	gvr schema.GroupVersionResource
	sub string
}

// NewResources returns the resources of the typed groups of infos, their kinds read from
// scheme; a group's versions are added in preference order and a version's resources in name
// order, so ResourceFor is deterministic.
func NewResources(scheme *runtime.Scheme, infos ...*registry.APIGroupInfo) *Resources {
	r := &Resources{byStorage: map[rest.Storage][]resourceKey{}, storageOf: map[resourceKey]rest.Storage{},
		kinds: map[resourceKey]schema.GroupVersionKind{}, resourceOf: map[schema.GroupVersionKind]schema.GroupVersionResource{}}
	for _, info := range infos {
		for _, gv := range info.PrioritizedVersions {
			storages := info.VersionedResourcesStorageMap[gv.Version]
			for _, path := range slices.Sorted(maps.Keys(storages)) {
				s := storages[path]
				resource, sub, _ := strings.Cut(path, "/")
				main := info.VersionedResourcesStorageMap[gv.Version][resource]
				if main == nil {
					continue
				}
				r.Add(gv.WithResource(resource), sub, main, kindOf(scheme, gv, s, main))
			}
		}
	}
	return r
}

// kindOf returns the kind storage s (a subresource of main, or main itself) serves in gv.
func kindOf(scheme *runtime.Scheme, gv schema.GroupVersion, s, main rest.Storage) schema.GroupVersionKind {
	if p, ok := s.(rest.GroupVersionKindProvider); ok {
		return p.GroupVersionKind(gv)
	}
	kinds, _, err := scheme.ObjectKinds(main.New())
	if err != nil || len(kinds) == 0 {
		return schema.GroupVersionKind{}
	}
	return gv.WithKind(kinds[0].Kind)
}

// Add records that main serves gvr (with subresource sub, "" for the resource itself) as
// kind.
func (r *Resources) Add(gvr schema.GroupVersionResource, sub string, main rest.Storage, kind schema.GroupVersionKind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := resourceKey{gvr, sub}
	if _, dup := r.storageOf[k]; !dup {
		r.byStorage[main] = append(r.byStorage[main], k)
	}
	r.storageOf[k] = main
	r.kinds[k] = kind
	if _, dup := r.resourceOf[kind]; !dup && sub == "" && !kind.Empty() {
		r.resourceOf[kind] = gvr
	}
}

// ResourceFor returns the resource serving kind gvk.
func (r *Resources) ResourceFor(gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	gvr, ok := r.resourceOf[gvk]
	return gvr, ok
}

// EquivalentResourcesFor returns the resources served by gvr's storage with subresource sub,
// gvr included; nil when gvr is unknown.
func (r *Resources) EquivalentResourcesFor(gvr schema.GroupVersionResource, sub string) []schema.GroupVersionResource {
	r.mu.RLock()
	defer r.mu.RUnlock()
	main, ok := r.storageOf[resourceKey{gvr, sub}]
	if !ok {
		return nil
	}
	var out []schema.GroupVersionResource
	for _, k := range r.byStorage[main] {
		if k.sub == sub {
			out = append(out, k.gvr)
		}
	}
	return out
}

// KindFor returns the kind gvr serves with subresource sub, or the zero GVK.
func (r *Resources) KindFor(gvr schema.GroupVersionResource, sub string) schema.GroupVersionKind {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.kinds[resourceKey{gvr, sub}]
}
