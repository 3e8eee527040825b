// Package registry holds the generic Store that serves a resource from a storage.Interface,
// the Strategy that generated code implements for each kind, and APIGroupInfo, the shape in
// which generated install code hands a group's resources to the server. It mirrors
// k8s.io/apiserver/pkg/registry/generic/registry.Store in semantics, not in size.
package registry
