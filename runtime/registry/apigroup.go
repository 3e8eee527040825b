package registry

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/common"
	"slices"

	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// APIGroupInfo is one API group as generated install code hands it to the server, as
// k8s.io/apiserver's genericapiserver.APIGroupInfo.
type APIGroupInfo struct {
	// Group is the group name, e.g. "db.example.com".
	Group string
	// PrioritizedVersions lists the served versions, most preferred first; the first is the
	// preferred version in discovery.
	PrioritizedVersions []schema.GroupVersion
	// VersionedResourcesStorageMap maps version -> resource path -> storage. Paths are
	// "databases", "databases/status", "databases/scale". A resource missing from a version
	// is not served in it.
	VersionedResourcesStorageMap map[string]map[string]rest.Storage
	// Scheme knows the group's internal and versioned types, conversions and defaulters.
	Scheme *runtime.Scheme
	// OpenAPIDefinitions returns the OpenAPI schemas of every versioned type the group serves
	// and of every type they reach, keyed by Go type name
	// ("github.com/.../apis/db/v1.Database", "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta").
	OpenAPIDefinitions common.GetOpenAPIDefinitions
	// Verbs limits what a resource path serves, by version and resource path as in
	// VersionedResourcesStorageMap: only the listed verbs (kube's names: get, list, watch,
	// create, update, patch, delete, deletecollection) of those its storage implements get
	// routes and are listed in discovery; the others answer 405 MethodNotAllowed (or 404 where
	// no route of the path is left). A path without an entry serves every verb its storage
	// implements. Generated install code fills it from +genclient:onlyVerbs, skipVerbs,
	// readonly and noVerbs.
	Verbs map[string]map[string][]string
	// DeprecationWarnings marks resources deprecated, by version and resource ("databases"):
	// every response to a request for the resource or its subresources in that version carries
	// `Warning: 299 - "<text>"`, as kube-apiserver warns about a deprecated API.
	DeprecationWarnings map[string]map[string]string
}

// StorageFactory creates the storage.Interface for one resource. The server implements it
// over its etcd client; generated install code calls it once per resource.
type StorageFactory interface {
	// NewStorage returns storage for resource, keyed under
	// <etcd-prefix>/<resource.Group>/<resource.Resource>, that encodes objects as
	// storageVersion through scheme and decodes them (defaulted) into objects from newFunc.
	NewStorage(resource schema.GroupResource, storageVersion schema.GroupVersion, scheme *runtime.Scheme,
		newFunc func() runtime.Object) (storage.Interface, error)
}

// Allows reports whether the resource at path (as in VersionedResourcesStorageMap) of version
// serves verb (kube's name: "get", "delete", "deletecollection", ...) as far as Verbs limits it:
// true when Verbs names no verbs for it. Whether its storage implements the verb is the
// caller's to check, as the endpoints installer checks both. The controllers that act on every
// resource (garbage collection, namespace deletion) skip those that do not allow what they do,
// as kube's follow discovery's verbs.
func (i *APIGroupInfo) Allows(version, path, verb string) bool {
	verbs, ok := i.Verbs[version][path]
	return !ok || slices.Contains(verbs, verb)
}

// Serve adds storage at the resource path (as in VersionedResourcesStorageMap) of version,
// serving verbs (as in Verbs; nil: every verb storage implements), creating the maps it
// needs. Generated install code calls it for the resources whose REST the user writes
// (UserREST), which are built after the group's other resources.
func (i *APIGroupInfo) Serve(version, path string, storage rest.Storage, verbs []string) {
	if i.VersionedResourcesStorageMap == nil {
		i.VersionedResourcesStorageMap = map[string]map[string]rest.Storage{}
	}
	if i.VersionedResourcesStorageMap[version] == nil {
		i.VersionedResourcesStorageMap[version] = map[string]rest.Storage{}
	}
	i.VersionedResourcesStorageMap[version][path] = storage
	if verbs == nil {
		return
	}
	if i.Verbs == nil {
		i.Verbs = map[string]map[string][]string{}
	}
	if i.Verbs[version] == nil {
		i.Verbs[version] = map[string][]string{}
	}
	i.Verbs[version][path] = verbs
}
