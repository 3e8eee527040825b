// Package admission runs admission plugins on every write after it is decoded and defaulted
// and before it is validated and stored, as kube-apiserver's admission chain
// (k8s.io/apiserver/pkg/admission): first every enabled mutating plugin in order (each may
// change the object), then every enabled validating plugin (none may). A plugin's error
// refuses the request: a Kubernetes API status error as it is, anything else as 403
// Forbidden naming the object. Plugins are registered by name in Plugins; the server enables
// them with --enable-admission-plugins / --disable-admission-plugins.
//
// The registry's Store calls the chain on create, update and delete (registry.Store.Admission).
// Plugins: namespacelifecycle (NamespaceLifecycle), webhook (MutatingAdmissionWebhook,
// ValidatingAdmissionWebhook) and policy (ValidatingAdmissionPolicy); the packages they share
// are cel (admission CEL expressions), informer (caches of stored objects), matching (rules and
// selectors) and versioned (objects in the version a webhook or policy asked for). Plugins may
// want listers (WantsListers), the scheme and the server's resources (WantsScheme), the
// authorizer (authorization.WantsAuthorizer) and background caches (CacheRunner); the server gives them
// before serving. NewAdmissionRequest describes a write as kube's AdmissionRequest.
package admission
