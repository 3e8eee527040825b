// Package aggregator sends the requests of API groups served elsewhere to the servers that
// serve them, as kube-apiserver's kube-aggregator does for APIServices: every request under
// /apis/<group>/<version> of a registered backend is proxied to it over TLS, presenting the
// front-proxy client certificate and naming the caller in X-Remote-User, X-Remote-Group and
// X-Remote-Extra-* headers; /apis lists the backend's group beside the local ones; a checker
// keeps an Available condition per backend from its discovery endpoint, and an unavailable
// backend's group answers 503 while every other group is unaffected.
//
// Status: backends are registered by flag (--proxy-endpoint <group>/<version>=<url>, as the
// issue allows for running outside a cluster); the apiservices.apiregistration.k8s.io API that
// would register them, and report the Available condition in its status, is not served yet:
// availability is exported as kube-aggregator's aggregator_unavailable_apiservice metric.
package aggregator
