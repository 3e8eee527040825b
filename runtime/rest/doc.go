// Package rest defines the interfaces a resource's storage implements; the endpoints
// installer derives a resource's verbs and routes from which of them it implements, as
// kube-apiserver's registerResourceHandlers does with k8s.io/apiserver/pkg/registry/rest.
//
// Objects crossing these interfaces are internal (hub) objects, except for a storage that
// implements GroupVersionKindProvider, whose objects are of the kind it names (a /scale
// subresource's autoscaling/v1 Scale). The namespace of a request
// travels in the context (runtime/request.NamespaceValue).
package rest
