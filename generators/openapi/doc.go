// Package openapi generates <install dir>/zz_generated.openapi.go for every API group, as
// kube-openapi's openapi-gen: GetOpenAPIDefinitions(ref) returning one
// common.OpenAPIDefinition per Go type the group serves, keyed by Go type name
// ("github.com/.../apis/db/v1.Database", "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta").
//
// Covered types are the kinds and lists of every served version (never a separate hub), every
// struct they reach, local or external, and metav1.Status, DeleteOptions, WatchEvent and Patch
// with what they reach (when the loader put them in API.Types).
//
// Schemas follow openapi-gen: description from the doc comment; properties by JSON name with
// inline and embedded fields flattened; `json:"-"` skipped; required = fields without
// omitempty that are not +optional, plus +required; pointers transparent; named structs as
// references (with the default {} openapi-gen enforces on non-pointer structs); named basic
// types inlined with their enum; validation markers, +default and +listType/+listMapKey mapped
// to the schema and its x-kubernetes-* extensions. Types with OpenAPISchemaType methods
// (resource.Quantity, intstr.IntOrString, metav1.Time, MicroTime, Duration) are described by
// calling those methods, exactly as openapi-gen emits them.
package openapi
