// Package v1 names, in the fields of its one kind, the k8s.io/apimachinery types whose OpenAPI
// definitions runtime/openapi/apimachinery holds once for every generated group (with every type
// they reach, and the metav1 types every group's server speaks: DeleteOptions, Patch, Status,
// WatchEvent). TestSharedDefinitions loads it to regenerate that package; add a field here to
// share another apimachinery type.
//
// +groupName=shared.apigen.dev
package v1
