// Package v1 names, in the fields of its one kind, the k8s.io/apimachinery types whose JSON
// codecs runtime/jsoncodec/apimachinery holds once for every generated group (with every
// struct they reach, and the metav1 types every group's server speaks: DeleteOptions, Patch,
// Status, WatchEvent). TestSharedCodecs loads it to regenerate that package; add a field here
// to share another apimachinery type.
//
// +groupName=shared.apigen.dev
package v1
