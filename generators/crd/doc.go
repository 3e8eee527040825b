// Package crd generates a CustomResourceDefinition (apiextensions.k8s.io/v1) for every served
// resource, the CRDs controller-gen's crd generator (sigs.k8s.io/controller-tools v0.23.0,
// pkg/crd) writes for the same types, from the same load as every other generator.
//
// # Files
//
// One YAML file per group and resource, <CRDDir>/<group>_<plural>.yaml, where CRDDir is
// <root>/config/crd and <root> the parent of the apis (or api) directory, the root of the
// generated clients too (model.Group.CRDDir: example-api/config/crd/db.example.com_databases.yaml).
// A file is emit.YAMLHeader, a "---" line, then the CRD as controller-gen writes it:
// encoded to JSON, decoded with exact numbers, status and metadata.creationTimestamp
// removed, marshalled by sigs.k8s.io/yaml (keys sorted); default, example and enum values are
// normalised as controller-gen's conversion through apiextensions' internal version does
// (whole numbers as integers, object keys sorted, a null default dropped). The files of a
// group are owned as generated Go files are (generators/output.Matching): `apigen verify`
// reports them stale, missing or extra, and generate deletes the group's generated YAML files
// it no longer writes.
//
// Groups without CRDs: the Kubernetes built-in groups apigen's runtime serves (packages
// below runtime/apis: the core group, RBAC, apiextensions, ...; a cluster serves them
// natively and Kubernetes publishes no CRDs for them), and a group whose name has no dot,
// which no CRD can name (a warning). Create-only kinds (+genclient:onlyVerbs=create) get no
// CRD: they are never stored.
//
// # The CustomResourceDefinition
//
//   - metadata.name <plural>.<group>; annotations and labels from
//     +kubebuilder:metadata:annotations=<key=value>,labels=<key=value> on the kind, in every
//     version. A group Kubernetes protects (k8s.io, kubernetes.io and their subdomains)
//     without an api-approved.kubernetes.io annotation is a warning: kube-apiserver refuses
//     the CRD.
//   - spec.names: kind, listKind (<Kind>List), plural and singular as apigen serves them
//     (model.Kind.Plural: +kubebuilder:resource:path, else client-gen's plural for a
//     +genclient kind, controller-gen's otherwise), shortNames and categories from
//     +kubebuilder:resource; spec.scope Cluster for +kubebuilder:resource:scope=Cluster or
//     +genclient:nonNamespaced.
//   - spec.versions, sorted by name as controller-gen sorts them, one per version serving the
//     kind (+kubebuilder:skipversion drops it): served unless +kubebuilder:unservedversion;
//     storage the kind's storage version (model.Group.StorageVersionOf: +kubebuilder:storageversion
//     on the kind, else its most preferred version); deprecated, with the marker's warning if it gives one, by
//     +kubebuilder:deprecatedversion[:warning=...]; subresources status
//     (+kubebuilder:subresource:status, or +genclient with a Status field) and scale
//     (+kubebuilder:subresource:scale:specpath,statuspath,selectorpath), and an empty
//     subresources object for a kind with printer columns but neither, as controller-gen
//     writes it; additionalPrinterColumns (+kubebuilder:printcolumn) and selectableFields
//     (+kubebuilder:selectablefield), in marker order; and the schema.
//
// # The schema
//
// Built in controller-gen's two steps, with its merge rules. Each named type gets a schema
// in which other named types are references: a struct is an object with a property per
// JSON field (json:"-" skipped; an inline or embedded field an allOf entry), a slice an
// array ([]byte a string of format byte), a map an object with additionalProperties, a
// pointer its element, a basic type its JSON type (int32/uint32 format int32, int64/uint64
// format int64; floats number, as crd:allowDangerousTypes), interface{} a value with
// x-kubernetes-preserve-unknown-fields. A reference keeps the type a field marker needs: array
// for a named slice type, object for a named map type, and for a named basic type of the same
// package its type and format. A type declared as another named type (`type GRPCHeaderName
// HeaderName`, model.Type.DefinedFrom) is a reference to it, so it inherits its markers. A type
// with MarshalJSON is described by its type markers if they give it a type, one with
// MarshalText is a string. Fixed schemas replace the declarations of metav1.ObjectMeta (an
// object, at the top level and anywhere else), Time and MicroTime (date-time strings),
// Duration (a string), Fields, resource.Quantity and intstr.IntOrString
// (x-kubernetes-int-or-string with anyOf integer/string; Quantity with controller-gen's
// pattern), runtime.RawExtension (an object preserving unknown fields), apiextensions' JSON
// and unstructured.Unstructured.
//
// A kind's schema is then its type's with every reference resolved into an allOf of the
// referenced type's schema and the referring field's (the field's description, else the
// type's, describes it), and every allOf merged: properties by name, required lists joined
// and sorted, the field's CEL rules before the type's, an enum only where there is none, and
// two values of one constraint (a type's maxLength and a field's) kept as an allOf pair, as
// controller-gen's Flattener does. A type reached again while it is being resolved is an
// empty schema. The top-level metadata property is `type: object`.
//
// Descriptions are the doc comments as controller-gen's markers.extractDoc gives them:
// marker lines dropped, lines joined with newlines, runs of blank lines collapsed, lines
// starting with TODO dropped and everything from a line starting with --- on dropped,
// outside fenced code blocks.
//
// A field is required by controller-gen's rule: +optional (+kubebuilder:validation:Optional,
// +k8s:optional) makes it optional and +required (+kubebuilder:validation:Required,
// +k8s:required) required; otherwise, unless its package carries
// +kubebuilder:validation:Optional, a field that is not inline and has neither omitempty nor
// omitzero is required.
//
// Markers, on a field or a type, map to the schema as in controller-gen:
//
//	+kubebuilder:validation:Minimum, Maximum, ExclusiveMinimum, ExclusiveMaximum, MultipleOf  minimum, maximum, exclusive*, multipleOf
//	MinLength, MaxLength, Pattern, Format                                                   minLength, maxLength, pattern, format
//	MinItems, MaxItems, UniqueItems, MinProperties, MaxProperties                           the same names
//	+kubebuilder:validation:Enum (field or type)                                            enum
//	+k8s:enum (type)                                                                         type string, enum: the type's constants, sorted
//	+kubebuilder:validation:items:<Marker>                                                  the constraint on the items
//	+kubebuilder:validation:XValidation:rule,message,messageExpression,reason,fieldPath,optionalOldSelf  x-kubernetes-validations
//	+kubebuilder:validation:AtMostOneOf, ExactlyOneOf, AtLeastOneOf (type)                 x-kubernetes-validations, controller-gen's rule and message
//	+listType, +listMapKey (field or type; +k8s:listType, +k8s:listMapKey)                   x-kubernetes-list-type, x-kubernetes-list-map-keys
//	+mapType, +structType                                                                    x-kubernetes-map-type
//	+kubebuilder:default, +default (field)                                                  default
//	+nullable (field)                                                                        nullable
//	+k8s:required (field)                                                                    required, and minLength, minItems or minProperties 1 unless set
//	+k8s:immutable (field)                                                                   rule self == oldSelf ("field is immutable"); on an optional field also,
//	                                                                                         on its struct, !has(oldSelf.f) || has(self.f) ("field f is immutable once set")
//
// The constraints of the model are written whatever grammar set them (+k8s:minimum,
// +k8s:validation:maxLength, ... are synonyms, generators/markers). +listType or +listMapKey
// on a field or type that is not a list, and +listMapKey without +listType=map, are errors at
// the field or type: a CRD schema cannot hold them.
//
// # Where it differs from controller-gen
//
// TestMatchesControllerGen runs controller-gen on the corpus trees, the example API and
// Gateway API's standard channel and lists every difference with its reason; they are these,
// each following from what apigen serves:
//
//   - storage: a kind with several versions and no +kubebuilder:storageversion is stored in its
//     most preferred version; controller-gen reports "CRD ... has no storage version".
//   - +genclient:nonNamespaced makes the resource cluster-scoped, and a +genclient kind with a
//     Status field has the status subresource, as client-gen's clients expect; controller-gen
//     reads only +kubebuilder:resource:scope and +kubebuilder:subresource:status.
//   - a +genclient kind is named with client-gen's plural (indexes), which its clients
//     request; controller-gen uses flect's (indices).
//   - a kind whose REST the user writes (+apigen:storage=rest: computed or proxied, as
//     metrics-server's) has no CRD: a CustomResourceDefinition stores its objects, which such
//     a kind has none of; controller-gen writes one for every root kind.
//   - constraints apigen reads in grammars controller-gen does not (+k8s:eachVal on map
//     values, +k8s:minLength, ...) are written.
//   - floats are numbers (controller-gen needs crd:allowDangerousTypes), interface{} preserves
//     unknown fields (controller-gen rejects it), a field without a json tag is named as
//     encoding/json names it (controller-gen rejects it) and unexported fields are left out
//     (as crd:ignoreUnexportedFields).
//   - no controller-gen.kubebuilder.io/version annotation (as crd:omitToolVersion): generated
//     files carry no tool version.
//   - reason: FieldValueInvalid, the default, is not written even when the marker gives it.
//   - where controller-gen's output depends on map iteration order (a field's XValidation
//     rules and its +k8s:immutable rule have the same priority there), apigen writes the
//     XValidation rules first.
//   - not modelled, so not written: +kubebuilder:validation:Type, XIntOrString,
//     EmbeddedResource, Schemaless, +kubebuilder:pruning:PreserveUnknownFields,
//     +kubebuilder:title, +kubebuilder:example, +kubebuilder:externalDocs. The loader warns
//     about them, and about a package's
//     +kubebuilder:skip, which keeps controller-gen from writing CRD versions for the
//     package and which apigen does not honour.
//   - a marker controller-gen rejects on a schema (a maximum on a field whose type is a named
//     type of another package, whose reference has no type yet) is applied.
package crd
