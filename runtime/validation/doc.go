// Package validation is the runtime of apigen's generated declarative validation
// (zz_generated.validation.go) and the entry point strategies call to run it.
//
// Generated Validate_<Type> functions use Kubernetes' own declarative-validation helpers
// (k8s.io/apimachinery/pkg/api/validate: Minimum and Maximum on integers, MinLength,
// MaxLength, MinItems, MaxItems, MinProperties, MaxProperties, Enum, Required*, EachSliceVal,
// EachMapVal, ValSliceUnique, UUID and the k8s-* string formats) wherever one fits, so their
// errors read exactly as Kubernetes'. This package adds what apimachinery lacks, with the
// wording kube-apiserver uses for CustomResourceDefinition schemas:
//
//   - [Minimum], [Maximum]: inclusive or exclusive bounds on any number (floats, or integer
//     fields with a fractional bound);
//   - [MultipleOf];
//   - [EnumValue]: enums of non-string values;
//   - [Pattern]: a regular expression compiled once by the generated code;
//   - [Format]: the OpenAPI string formats (date-time, uri, email, hostname, ipv4, ipv6,
//     uuid, duration, ... as kube-openapi's strfmt registry) plus quantity.
//
// [Declarative] runs the validation registered in a runtime.Scheme for an internal (hub)
// object in the version of the request, as k8s.io/apiserver's rest.ValidateDeclaratively,
// so that field paths and values are those the client sent.
package validation
