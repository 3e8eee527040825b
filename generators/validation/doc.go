// Package validation is apigen's validation generator: it turns the validation markers of a
// version package's types into zz_generated.validation.go, Go code equivalent to Kubernetes'
// validation-gen output, registered in the package's scheme with AddValidationFunc.
//
// For every version package with root kinds the file holds:
//
//   - init, registering RegisterValidations with localSchemeBuilder, and RegisterValidations,
//     which registers, per root kind, one scheme validation function for create and update;
//   - one Validate_<Type>(ctx, op, fldPath, obj, oldObj) per local type that needs checks,
//     recursing into nested local structs, pointers, slices and maps, with field paths of JSON
//     names (spec.backup.retentionDays, status.conditions[0]);
//   - package-level variables: one compiled regexp per pattern, one slice per enum, one
//     *cel.DeferredRule per XValidation marker, compiled at its first use (the generator
//     compiles every rule once, so a rule that does not compile is a diagnostic at its marker).
//
// As a CRD is validated, a kind whose types hold CEL rules has its errors passed through
// cel.Gate (the rules' errors give way to "some validation rules were not checked ..." when a
// schema error blocks them), and a kind with +kubebuilder:subresource:scale has the replicas
// its specpath names checked (validation.ScaleReplicas: ".spec.replicas: ... should be a
// non-negative integer").
//
// Markers and what they generate (helpers from k8s.io/apimachinery/pkg/api/validate, so errors
// read as Kubernetes', else from apigen's runtime/validation, whose value checks are
// kube-apiserver's for a CRD schema, message for message: kube-openapi's validate functions
// turned into field errors as apiextensions-apiserver does):
//
//	+required, +kubebuilder:validation:Required   validate.Required{Value,Pointer,Slice,Map}
//	+optional, omitempty                          an absent (zero) value is not checked further
//	Minimum, Maximum (Exclusive*)                 validation.Minimum, validation.Maximum
//	MultipleOf                                    validation.MultipleOf
//	MinLength, MaxLength                          validation.MinLength, validation.MaxLength
//	Pattern                                       validation.Pattern (regexp compiled once); with
//	                                                the lengths in validation.FirstFailure, as
//	                                                kube-openapi checks maxLength, minLength, pattern
//	the markers of the type a named type is       Validate_<Type> calls the function of the type
//	  defined from (type HTTPHeaderName HeaderName)  it is defined from, as controller-gen inherits them
//	Format (date-time, uri, email, hostname,      validation.Format; k8s-* formats a CRD does
//	  ipv4, ipv6, uuid, duration, quantity,         not support use validate.LabelKey, validate.UUID, ...
//	  k8s-short-name, k8s-long-name, ...)
//	Enum (on the field or its named type)         validation.Enum (the marker's order)
//	MinItems, MaxItems                            validation.MinItems, validation.MaxItems
//	MinProperties, MaxProperties                  validation.MinProperties, validation.MaxProperties
//	+listType=set, UniqueItems                    validation.UniqueSet: Duplicate value
//	+listType=map with +listMapKey                validation.UniqueMapKeys on the key fields
//	XValidation:rule=...,message=...              cel.DeferredRule.Validate (runtime/validation/cel)
//	a local type with checks, as a field, item    Validate_<Type>; items through
//	  ([]T, []*T) or map value (map[string]T)       validate.EachValSliceVal, EachPtrSliceVal, EachMapVal
//	+k8s:immutable                                validate.Immutable ("field is immutable" on a change)
//	+k8s:update=NoSet|NoUnset|NoModify|           validate.UpdatePointer, UpdateValueByCompare, UpdateStruct,
//	  NoAddItem|NoRemoveItem                        UpdateValueByReflect; ValSliceUpdate on lists
//	+k8s:maxBytes                                 validate.MaxBytes
//	+k8s:neq=<value>                              validate.NEQ
//	+k8s:unique=set, +k8s:unique=map              validation.UniqueSet, validation.UniqueMapKeys
//	+kubebuilder:validation:items:<Marker>,       validate.EachValSliceVal / EachMapVal with the item's
//	  +k8s:eachVal=+k8s:<marker>                    checks; +k8s:eachKey: validate.EachMapKey
//	+k8s:unionMember, +k8s:unionDiscriminator     validate.Union, validate.DiscriminatedUnion (a
//	                                                package-level membership per union of a struct)
//	+kubebuilder:validation:AtMostOneOf,          the CEL rule controller-gen writes ("exactly one of
//	  ExactlyOneOf, AtLeastOneOf (type level)       the fields in [a b] must be set"), run as XValidation
//	+nullable                                     nothing in Go (null decodes to the zero value); the
//	                                                schema says nullable (v3 only)
//
// Every marker is also accepted under its synonyms (+k8s:minimum=0, +k8s:validation:minimum=0,
// +k8s:required, ...), which generators/markers maps onto the same model.
//
// Item constraints come from the item type's own markers (`type Tag string` with
// +kubebuilder:validation:MaxLength) and from items:* and eachVal on the field; values of
// maps of pointers are not checked. The declarative tags act on fields; list-item scopes
// (+k8s:item, unions of list items) are accepted by the parser but not generated.
//
// As in Kubernetes, validation ratchets: on update a field equal to its stored value is not
// validated again, and list-map items are matched to their stored items by key.
//
// Diagnostics, all reported together at the marker's or field's file:line: a CEL rule that
// does not compile (with cel-go's message), a pattern that is not a valid regular expression,
// an enum value that does not fit its field, a +listMapKey that names no field of the items,
// and a default that violates its own field's constraints ("default 12 of
// DatabaseSpec.Replicas violates +kubebuilder:validation:Maximum=9").
package validation
