// Package apimachinery holds the OpenAPI definitions of the k8s.io/apimachinery types every
// generated API group references (ObjectMeta, ListMeta, Status, DeleteOptions, Condition,
// Quantity, IntOrString, ...), generated once by apigen's openapi generator from the
// apimachinery version in go.mod, instead of once per group: a group's generated
// GetOpenAPIDefinitions starts from GetOpenAPIDefinitions here and adds its own types.
// `go test ./generators/openapi -run TestSharedDefinitions -update` rewrites it.
package apimachinery
