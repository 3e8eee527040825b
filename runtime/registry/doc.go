// Package registry holds the generic Store that serves a resource from a storage.Interface,
// the Strategy that generated code implements for each kind, and APIGroupInfo, the shape in
// which generated install code hands a group's resources to the server. It mirrors
// k8s.io/apiserver/pkg/registry/generic/registry.Store in semantics, not in size.
//
// Beside the Store: StatusStore serves /status, ScaleStore serves /scale (autoscaling/v1
// Scale mapped onto the kind's fields by JSON paths, as a CustomResourceDefinition's scale
// subresource), and Store.SelectableFields extends field selectors beyond metadata.name and
// metadata.namespace to the kind's +kubebuilder:selectablefield paths.
//
// Deletion is kube-apiserver's: propagationPolicy (and the deprecated orphanDependents) set the
// "foregroundDeletion" or "orphan" finalizer that runtime/garbagecollector acts on, a kind may
// declare its default policy (GarbageCollectionDeleteStrategy) and graceful deletion with
// gracePeriodSeconds (GracefulDeleteStrategy), both as optional methods of its Strategy.
package registry
