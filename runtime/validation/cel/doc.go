// Package cel compiles and evaluates the CEL validation rules of
// +kubebuilder:validation:XValidation markers (apiextensions' x-kubernetes-validations) with
// Kubernetes' semantics, through github.com/google/cel-go.
//
// A rule is compiled once, with [Compile], into a [Rule]. The generator compiles each rule
// with the same function at generate time, so a rule that does not compile is reported at its
// marker's file:line before any code is written; generated zz_generated.validation.go files
// then declare each rule with [Defer], compiled at the first object it checks.
//
// Inside a rule, self is the value of the field (or type) the marker is on, converted to its
// JSON shape (strings, int64, float64, bools, lists and string-keyed maps); oldSelf is the
// stored value on update. The environment is Kubernetes' CEL base environment (see BaseEnv):
// cel-go's standard library and extensions as kube-apiserver configures them, and
// Kubernetes' function libraries taken from k8s.io/apiserver/pkg/cel/library (quantity(),
// isSorted(), url(), ip(), cidr(), format, semver, regex, authz), evaluated with its cost
// estimator. Admission expressions (runtime/admission/...) extend BaseEnv with their own
// variables.
//
// [Rule.Validate] mirrors apiextensions-apiserver's schema/cel validator:
//   - a transition rule (one that references oldSelf) runs only on update when the old value
//     exists, unless OptionalOldSelf is set, in which case oldSelf is an optional that is
//     optional.none() on create;
//   - a rule that evaluates to false yields an error of the rule's reason (Invalid unless
//     Reason says otherwise) at the field, or at FieldPath below it, with the message of
//     MessageExpression, else Message, else "failed rule: <rule>";
//   - an evaluation error, including exceeding the cost limit, is an Invalid error, never a
//     panic.
package cel
