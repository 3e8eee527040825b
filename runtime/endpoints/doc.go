// Package endpoints installs an API group's storages as go-restful routes, as
// kube-apiserver's APIInstaller and its handlers (k8s.io/apiserver/pkg/endpoints): one
// WebService per served version at /apis/<group>/<version>, verbs derived from the rest
// interfaces each storage implements, and the request path of DESIGN.md section 5:
//
//	body (json|yaml, strict/warn/ignore field validation) -> decode -> default -> internal
//	  -> storage (registry.Store) -> internal -> the URL's version -> json|yaml|Table
//
// A storage that implements rest.GroupVersionKindProvider (the /scale subresource) is served
// in the kind it names, e.g. autoscaling/v1 Scale under any group: bodies are decoded and
// responses encoded in that version, and discovery lists its group, version and kind.
//
// registry.APIGroupInfo.Verbs narrows what a resource path serves (routes and discovery
// verbs; a left-out verb answers 405 MethodNotAllowed), and DeprecationWarnings adds
// kube-apiserver's `Warning: 299 - "<text>"` header to every response of a deprecated
// resource in a version.
//
// Every error reaches the client as a metav1.Status with the code and reason of its
// apierrors class. Watches stream metav1.WatchEvent JSON frames.
package endpoints
