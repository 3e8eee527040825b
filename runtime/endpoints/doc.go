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
// Every write records field ownership in metadata.managedFields, and PATCH with
// application/apply-patch+yaml is server-side apply, through one runtime/fieldmanager
// FieldManager per resource path and version (built at install from the group's OpenAPI
// models, Kinds.TypeConverter, or deduced types), as kube-apiserver's handlers run
// managedfields: create, update and every patch update the request manager's entry
// (fieldManager, else the User-Agent's product) before the storage's admission and
// validation; apply merges by ownership, creating the object when it is missing, and a
// conflict is 409 Conflict with a cause per field.
//
// Tables (kubectl get) are rendered from objects in the request's version.
//
// Every error reaches the client as a metav1.Status with the code and reason of its
// apierrors class. Watches stream metav1.WatchEvent JSON frames.
package endpoints
