// Package discovery serves legacy API discovery as kube-apiserver does:
//
//	/api                    metav1.APIVersions (["v1"] once the core group is served, else none)
//	/api/v1                 metav1.APIResourceList of the core group (namespaces)
//	/apis                   metav1.APIGroupList (never the core group)
//	/apis/<group>           metav1.APIGroup (served versions, preferred version first)
//	/apis/<group>/<version> metav1.APIResourceList (from the endpoints installer)
//
// Every document carries kind and apiVersion "v1" and is served as plain application/json.
// Aggregated discovery (apidiscovery.k8s.io/v2) is not served: its types live in k8s.io/api,
// which apigen does not depend on. Clients that ask for it first, like kubectl 1.32, see the
// application/json Content-Type and fall back to legacy discovery, as client-go does against
// any server without aggregated discovery.
package discovery
