package garbagecollector

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// Storage is what the collector needs of a resource's storage, in process: list and watch
// (its informers), get (live lookups of owners and dependents), delete and update (metadata
// only: ownerReferences and finalizers). runtime/registry.Store is one; objects may be of any
// type meta.Accessor reads (internal typed objects, *unstructured.Unstructured).
type Storage interface {
	rest.Storage
	rest.Getter
	rest.Lister
	rest.Watcher
	rest.GracefulDeleter
	rest.Updater
}

// Resource is one resource the collector watches and acts on, as one of
// kube-controller-manager's "deletable resources" (served with list, watch and delete).
type Resource struct {
	// GroupVersionResource names it in its preferred version (db.example.com/v1, databases);
	// objects the collector observes are identified with that version.
	schema.GroupVersionResource
	// Kind is its objects' kind ("Database").
	Kind string
	// Versions lists every version serving it: an ownerReference naming the kind with
	// another apiVersion does not resolve to it.
	Versions []string
	// Namespaced reports whether its objects live in namespaces.
	Namespaced bool
	// Storage serves its objects.
	Storage Storage
}

// GroupVersionKind is the resource's kind in its preferred version.
func (r *Resource) GroupVersionKind() schema.GroupVersionKind {
	return r.GroupVersion().WithKind(r.Kind)
}

// Source lists resources to watch. The collector asks every Source again at each resync
// (GarbageCollector.Resync, and every Config.ResyncPeriod), starting informers for resources
// that appeared and stopping those of resources that went, as kube's garbage collector
// follows discovery.
type Source interface {
	// Resources returns the resources served now; a GroupResource appears once.
	Resources() []Resource
}

// SourceFunc is a Source written as a function.
type SourceFunc func() []Resource

// Resources calls f.
func (f SourceFunc) Resources() []Resource { return f() }

// ignoredResources are the resources the collector never watches, as kube-controller-manager's
// garbagecollector.DefaultIgnoredResources: Events, in both of the groups that serve them
// (many, short-lived, and never owners).
var ignoredResources = map[schema.GroupResource]bool{
	{Group: "", Resource: "events"}:              true,
	{Group: "events.k8s.io", Resource: "events"}: true,
}

// APIGroupResources returns the resources of typed API groups: each resource (not a
// subresource) whose storage is a Storage, once per group, in the first of the group's
// PrioritizedVersions serving it, but ignoredResources. Its Kind is the one the group's Scheme knows for its
// storage's New() (the Go type name when the Scheme does not know it).
func APIGroupResources(infos ...*registry.APIGroupInfo) []Resource {
	var out []Resource
	for _, info := range infos {
		byName := map[string]*Resource{}
		var order []string
		for _, gv := range info.PrioritizedVersions {
			storages := info.VersionedResourcesStorageMap[gv.Version]
			for _, name := range slices.Sorted(maps.Keys(storages)) {
				st, ok := storages[name].(Storage)
				if !ok || strings.Contains(name, "/") || ignoredResources[schema.GroupResource{Group: info.Group, Resource: name}] ||
					!allowsCollection(info, gv.Version, name) {
					continue
				}
				if r := byName[name]; r != nil {
					r.Versions = append(r.Versions, gv.Version)
					continue
				}
				scoper, _ := storages[name].(rest.Scoper)
				byName[name] = &Resource{GroupVersionResource: gv.WithResource(name), Kind: kindOf(info, st),
					Versions: []string{gv.Version}, Namespaced: scoper != nil && scoper.NamespaceScoped(), Storage: st}
				order = append(order, name)
			}
		}
		for _, name := range order {
			out = append(out, *byName[name])
		}
	}
	return out
}

// allowsCollection reports whether info serves the verbs the collector uses on resource name
// of version: kube's garbage collector watches only the resources whose discovery verbs
// include delete, list and watch (GetDeletableResources; a computed resource,
// +apigen:storage=rest, often has neither delete nor objects of its own).
func allowsCollection(info *registry.APIGroupInfo, version, name string) bool {
	for _, verb := range []string{"delete", "list", "watch"} {
		if !info.Allows(version, name, verb) {
			return false
		}
	}
	return true
}

// kindOf is the kind of st's objects in info.
func kindOf(info *registry.APIGroupInfo, st Storage) string {
	obj := st.New()
	if info.Scheme != nil {
		if gvks, _, err := info.Scheme.ObjectKinds(obj); err == nil && len(gvks) > 0 {
			return gvks[0].Kind
		}
	}
	return reflect.Indirect(reflect.ValueOf(obj)).Type().Name()
}

// restMapper resolves ownerReferences' apiVersion and kind to the watched resources, as the
// REST mapper of kube's garbage collector (rebuilt at every resync).
type restMapper struct {
	byKind map[schema.GroupKind]*Resource
}

// restMappingError is an ownerReference whose apiVersion and kind name no served resource
// (yet: a custom resource whose CRD the collector has not picked up). Items failing on it are
// retried with backoff, as kube's.
type restMappingError struct {
	apiVersion, kind string
}

func (e *restMappingError) Error() string {
	return fmt.Sprintf("unable to get REST mapping for %s/%s", e.apiVersion, e.kind)
}

func newRESTMapper(resources []Resource) *restMapper {
	m := &restMapper{byKind: make(map[schema.GroupKind]*Resource, len(resources))}
	for i := range resources {
		r := &resources[i]
		m.byKind[schema.GroupKind{Group: r.Group, Kind: r.Kind}] = r
	}
	return m
}

// mapping returns the resource of apiVersion and kind; a *restMappingError when none serves it.
func (m *restMapper) mapping(apiVersion, kind string) (*Resource, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, &restMappingError{apiVersion: apiVersion, kind: kind}
	}
	r := m.byKind[schema.GroupKind{Group: gv.Group, Kind: kind}]
	if r == nil || !slices.Contains(r.Versions, gv.Version) {
		return nil, &restMappingError{apiVersion: apiVersion, kind: kind}
	}
	return r, nil
}
