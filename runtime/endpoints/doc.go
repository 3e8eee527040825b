// Package endpoints installs an API group's storages as go-restful routes, as
// kube-apiserver's APIInstaller and its handlers (k8s.io/apiserver/pkg/endpoints): one
// WebService per served version at /apis/<group>/<version>, verbs derived from the rest
// interfaces each storage implements, and the request path of DESIGN.md section 5:
//
//	body (json|yaml, strict/warn/ignore field validation) -> decode -> default -> internal (requestbody)
//	  -> storage (registry.Store) -> internal -> the URL's version -> json|yaml|Table
//
// A storage that implements rest.GroupVersionKindProvider (the /scale subresource) is served
// in the kind it names, e.g. autoscaling/v1 Scale under any group: bodies are decoded and
// responses encoded in that version, and discovery lists its group, version and kind.
//
// Every write records field ownership in metadata.managedFields, and PATCH with
// application/apply-patch+yaml is server-side apply, through one runtime/fieldmanager
// FieldManager per resource path and version (built at the path's first write, once, from
// the group's OpenAPI models, Kinds.TypeConverter, or deduced types: a server at rest never
// builds the models), as kube-apiserver's handlers run
// managedfields: create, update and every patch update the request manager's entry
// (fieldManager, else the User-Agent's product) before the storage's admission and
// validation; apply merges by ownership, creating the object when it is missing, and a
// conflict is 409 Conflict with a cause per field.
//
// Tables (kubectl get) are rendered from objects in the request's version.
//
// registry.APIGroupInfo.Verbs narrows what a resource path serves (routes and discovery
// verbs; a left-out verb answers 405 MethodNotAllowed), and DeprecationWarnings adds
// kube-apiserver's `Warning: 299 - "<text>"` header to every response of a deprecated
// resource in a version.
//
// Every error reaches the client as a metav1.Status with the code and reason of its
// apierrors class. Watches stream metav1.WatchEvent JSON frames.
//
// What one request may cost is bounded as kube-apiserver bounds it: a body of 3 MiB; a JSON
// patch of 10,000 operations whose copies add at most 3 MiB (json-patch's limit, checked on a
// replay of the copies' sizes before any copy is made); an unpaged JSON list read and written
// a page at a time, so a slow reader holds a page. List, watch and delete options are
// validated with apimachinery's validation before anything is read or deleted.
//
// Encodings are reused, as kube-apiserver's cachingObject reuses a watch-cache object's:
// each scope (resource path and version) keeps the JSON of the object states it wrote
// (encodingCache, by uid and resourceVersion; up to 32 MiB, so that an unpaged list of
// 10,000 ~1.8 KB objects is spliced whole, each dropped once unread for 10-20 s) for GETs,
// watch events and list items alike;
// a watch event's frame is built once and shared by every watcher (frameCache); a JSON list
// of typed objects is assembled from its items' encodings. Bodies over 128 KiB are gzipped
// for clients that accept it (kube-apiserver's threshold and level 1), and the gzipped body
// of a list page is kept per request and resourceVersion (pageCache).
package endpoints
