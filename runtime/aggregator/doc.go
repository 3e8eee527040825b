// Package aggregator sends the requests of API groups served elsewhere to the servers that
// serve them, driven by apiregistration.k8s.io/v1 APIServices, as kube-apiserver's
// kube-aggregator:
//
//   - An APIService "<version>.<group>" with a spec.service registers a group version served
//     by a backend: every request under /apis/<group>/<version> is proxied to it over TLS
//     (verified with spec.caBundle, or not with spec.insecureSkipTLSVerify), presenting the
//     front-proxy client certificate and naming the caller in X-Remote-User, X-Remote-Group
//     and X-Remote-Extra-* headers (the client's own credentials and identity headers are
//     dropped), as kube-aggregator's handler_proxy.go. An APIService without spec.service is
//     Local: the chain behind the aggregator serves it.
//   - The APIServices are listed and watched (Run); every change replaces an immutable
//     snapshot of them, so APIServices added, changed or deleted while the server runs take
//     effect at once, as kube swaps its per-APIService proxy handlers atomically.
//   - /apis lists every group with a proxied version beside the local ones (APIGroups), and
//     /apis/<group> of such a group is built from its APIServices, versions ordered by
//     versionPriority, as kube-aggregator's apis handler.
//   - The availability controller checks every APIService on each change and every
//     CheckInterval and writes its Available condition through the status subresource when it
//     changed: True "Local" for a Local one; for a proxied one False "ServiceNotFound" when its
//     service does not resolve, False "FailedDiscoveryCheck" when GET /apis/<group>/<version>
//     fails, True "Passed" otherwise. A group version whose APIService is not Available
//     answers 503 ServiceUnavailable ("service unavailable") while it stays listed in
//     discovery; every other group is unaffected. The aggregator_unavailable_apiservice gauge
//     follows the condition.
//   - The autoregister controller creates a Local APIService (labelled
//     kube-aggregator.kubernetes.io/automanaged=true) for every group version the chain
//     behind serves, and deletes those whose group version goes away.
//
// Services: spec.service is resolved to a URL by a ServiceResolver, as kube's. Outside a
// cluster there are no Services, so the server's --proxy-endpoint <group>/<version>=<url>
// values stand for them: each registers on start an APIService (automanaged=onstart) naming
// the Service kube-system/apigen-proxy-endpoint-<i> on the URL's port, which StaticResolver
// maps to the URL, as kube-apiserver's default (--enable-aggregator-routing=false) resolution
// maps a Service to its ClusterIP. An APIService created with kubectl may name those Services
// (e.g. another group version of the same backend); any other Service is ServiceNotFound.
//
// Discovery and OpenAPI of proxied group versions: every availability check keeps the
// APIResourceList the backend answered, which the server's aggregated discovery document
// lists (AggregatedGroups: Current when the last check read it, Stale otherwise), and reads
// the backend's /openapi/v3 document of the group version when its URL changed, which the
// server's /openapi/v3 then serves in place of any local copy (ServeOpenAPI), as
// kube-aggregator's discovery manager and OpenAPI v3 controller do. The backends' Swagger
// 2.0 documents are not merged into /openapi/v2.
//
// Not done: CustomResourceDefinition groups in the autoregister controller unless the link
// serving them lists them (APIGroups).
package aggregator
