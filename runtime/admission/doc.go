// Package admission runs admission plugins on every write after it is decoded and defaulted
// and before it is validated and stored, as kube-apiserver's admission chain
// (k8s.io/apiserver/pkg/admission): first every enabled mutating plugin in order (each may
// change the object), then every enabled validating plugin (none may). A plugin's error
// refuses the request: a Kubernetes API status error as it is, anything else as 403
// Forbidden naming the object. Plugins are registered by name in Plugins; the server enables
// them with --enable-admission-plugins / --disable-admission-plugins.
//
// The registry's Store calls the chain on create, update and delete (registry.Store.Admission);
// the NamespaceLifecycle plugin comes with namespaces (issue 6).
package admission
