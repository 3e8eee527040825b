// Package discovery serves legacy API discovery as kube-apiserver does:
//
//	/api                    metav1.APIVersions (["v1"] once the core group is served, else none)
//	/api/v1                 metav1.APIResourceList of the core group (namespaces)
//	/apis                   metav1.APIGroupList (never the core group)
//	/apis/<group>           metav1.APIGroup (served versions, preferred version first)
//	/apis/<group>/<version> metav1.APIResourceList (from the endpoints installer)
//
// Every document carries kind and apiVersion "v1" and is served as plain application/json.
//
// Aggregated discovery (apidiscovery.k8s.io/v2 and v2beta1 APIGroupDiscoveryList, the
// k8s.io/api/apidiscovery types) is what /api and /apis answer a request whose Accept asks
// for it first (NegotiateAggregated), as kube-apiserver: every group with every version and
// its resources in one document (ResourcesDiscovery, GroupDiscovery convert the legacy
// lists), with an ETag and 304 Not Modified on If-None-Match (ServeAggregated), so that
// client-go and kubectl make one request instead of one per group version.
package discovery
