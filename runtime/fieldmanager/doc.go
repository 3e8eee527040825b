// Package fieldmanager tracks field ownership (metadata.managedFields) and merges server-side
// apply requests, with k8s.io/apimachinery/pkg/util/managedfields and
// sigs.k8s.io/structured-merge-diff: the code kube-apiserver runs, not a re-derivation.
//
// A FieldManager is built once per served kind, version and subresource (New), from a
// TypeConverter that knows the merge semantics of the kind's fields: NewTypeConverter builds
// it from the OpenAPI definitions apigen generates (x-kubernetes-list-type,
// x-kubernetes-list-map-keys, x-kubernetes-map-type decide how lists, maps and structs merge),
// as kube-apiserver builds its TypeConverter from its OpenAPI models; custom resources give
// the models of their CRD's structural schema. The endpoints handlers call it on every write:
//
//	create, update, every patch type   FieldManager.UpdateNoErrors(live, new, ManagerName(...))
//	server-side apply                  FieldManager.Apply(live, patch, fieldManager, force)
//
// as kube-apiserver's create, update and patch handlers do. ManagerName derives the default
// manager from the User-Agent as kube-apiserver's prefixFromUserAgent.
//
// ScaleMappings and the managedfields.ScaleHandler move ownership of the replicas between a
// resource and its /scale subresource, as kube-apiserver's scale storages do.
package fieldmanager
