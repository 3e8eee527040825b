// Package openapi builds and serves the OpenAPI documents of an API server, as kube-apiserver
// serves /openapi/v2 and /openapi/v3.
//
// Documents are built once, after every API group is installed, from the server's go-restful
// WebServices and the groups' OpenAPI definitions, with k8s.io/kube-openapi's builder (Swagger
// 2.0) and builder3 (OpenAPI 3.0, one document per group version). Go type names become
// REST-friendly definition names through a DefinitionNamer; definitions of kinds registered in
// the scheme carry x-kubernetes-group-version-kind, which kubectl uses to find a kind's schema
// and to check that the kind's PATCH operation accepts the fieldValidation query parameter.
//
// /openapi/v2 is served as JSON or protobuf with an ETag; /openapi/v3 is served by
// kube-openapi's handler3: an index {"paths": {"apis/<group>/<version>": {"serverRelativeURL":
// "/openapi/v3/apis/<group>/<version>?hash=<etag>"}}}, and each group version's document,
// immutable when fetched with its hash.
package openapi
