// Package install generates a group's install package (<Group.InstallDir>, package install):
//
//   - zz_generated.install.go: Install(scheme), registering the hub and every version with
//     their conversions and defaulters and setting version priority; NewAPIGroupInfo(scheme,
//     storage), building one registry.Store per resource (plus registry.StatusStore for kinds
//     with a status subresource, and registry.ScaleStore for kinds with
//     +kubebuilder:subresource:scale, served as autoscaling/v1 Scale) for every served
//     version, as kube-apiserver's per-group RESTStorageProvider does; a kind's
//     +kubebuilder:selectablefield paths become Store.SelectableFields;
//   - zz_generated.strategy.go: one registry.Strategy per kind and one per status
//     subresource, as the strategies of Kubernetes' built-in registries (pkg/registry/...).
//
// Stores hold hub objects (the version's own when the group's hub is its only version). A
// resource's storage version is the group's storage version when that version serves the
// kind, else the most preferred version serving it; its printer columns come from the storage
// version's kind, else from the most preferred version that declares some. The OpenAPI
// definitions handed to the server are those of generators/openapi's GetOpenAPIDefinitions in
// the same package, merged with registry.ScaleOpenAPIDefinitions when a kind has /scale.
// Scale mappings and selectable fields are the storage version's (else the first version's
// that declares them), resolved on the hub type at start-up.
package install
