// Package validation is the runtime of apigen's generated declarative validation
// (zz_generated.validation.go) and the entry point strategies call to run it.
//
// Generated Validate_<Type> functions use Kubernetes' own declarative-validation helpers
// (k8s.io/apimachinery/pkg/api/validate: Required*, Optional*, EachSliceVal, EachMapVal,
// the update and union checks, MaxBytes, NEQ and the k8s-* string formats a CRD schema does
// not support) wherever one fits. The value constraints a CRD schema has are checked here,
// as kube-apiserver checks them on a custom resource: with kube-openapi's validate functions
// (the ones apiextensions-apiserver's schema validator calls), their errors turned into
// field errors as apiextensions-apiserver's kubeOpenAPIResultToFieldErrors does, so that a
// cause reads as the API server's ("spec.x in body should match '^a$'"):
//
//   - [Minimum], [Maximum], [MultipleOf]: numbers (an integer against the bound truncated);
//   - [MinLength], [MaxLength], [Pattern] (a regular expression compiled once by the
//     generated code), [Format] (kube-openapi's strfmt registry, k8s-short-name and
//     k8s-long-name included, plus quantity);
//   - [Enum]: allowed values listed in the marker's order;
//   - [MinItems], [MaxItems], [MinProperties], [MaxProperties];
//   - [UniqueSet], [UniqueMapKeys]: x-kubernetes-list-type set and map, duplicates reported
//     as apiextensions' listtype validation reports them;
//   - [ScaleReplicas]: the replicas a scale subresource's specpath names.
//
// [Declarative] runs the validation registered in a runtime.Scheme for an internal (hub)
// object in the version of the request, as k8s.io/apiserver's rest.ValidateDeclaratively,
// so that field paths and values are those the client sent. internal/crddiff compares all
// of this with controller-gen and apiextensions-apiserver.
package validation
