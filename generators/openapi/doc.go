// Package openapi generates <install dir>/zz_generated.openapi.go for every API group, as
// kube-openapi's openapi-gen: GetOpenAPIDefinitions(ref) returning one
// common.OpenAPIDefinition per Go type the group serves, keyed by Go type name
// ("github.com/.../apis/db/v1.Database", "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta").
//
// Covered types are the kinds and lists of every served version (never a separate hub), every
// struct they reach, local or external, and metav1.Status, DeleteOptions, WatchEvent and Patch
// with what they reach (when the loader put them in API.Types). The k8s.io/apimachinery types
// every group shares (ObjectMeta, Status, Condition, Quantity, ... : sharedTypes) are not
// repeated in each group's file: their definitions are generated once into
// runtime/openapi/apimachinery, and a group's GetOpenAPIDefinitions starts from those.
//
// Schemas follow openapi-gen: description from the doc comment; properties by JSON name with
// inline and embedded fields flattened; `json:"-"` skipped; required = the fields
// controller-gen makes required (model.Field.Required: without omitempty or omitzero and not
// +optional unless the package says +kubebuilder:validation:Optional, plus +required), which
// is what the server enforces; pointers transparent; named structs as
// references; the defaults openapi-gen enforces (the zero value of a basic field without
// omitempty, {} on a non-pointer struct) except on a required field (the server refuses a
// request without it) and for a struct with required fields (a default {} would leave them
// missing where the server accepts the struct left out); named basic
// types inlined with their enum; validation markers (minimum/maximum and their exclusive forms,
// multipleOf, min/maxLength, pattern, format, enum, min/maxItems, uniqueItems,
// min/maxProperties), +default and +listType/+listMapKey mapped to the schema and its
// x-kubernetes-list-type / x-kubernetes-list-map-keys extensions; +kubebuilder:validation:XValidation
// rules, on a field, a named type or a struct, published as x-kubernetes-validations (as
// controller-gen writes them into a CRD). x-kubernetes-group-version-kind is added when the
// server builds its documents (runtime/openapi's DefinitionNamer), as kube-apiserver does. Types with OpenAPISchemaType methods
// (resource.Quantity, intstr.IntOrString, metav1.Time, MicroTime, Duration) are described by
// calling those methods, exactly as openapi-gen emits them.
package openapi
