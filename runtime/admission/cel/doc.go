// Package cel compiles and evaluates the CEL expressions of admission control, as
// k8s.io/apiserver's admission/plugin/cel: webhook matchConditions and a
// ValidatingAdmissionPolicy's matchConditions, validations, messageExpressions,
// auditAnnotations and variables.
//
// Expressions are compiled in Kubernetes' base environment (runtime/validation/cel.BaseEnv:
// the Kubernetes function libraries) extended with the admission variables, declared as
// kube-apiserver declares them: object and oldObject (dyn: the object in the version the
// webhook or policy matched, as JSON, or null), request (kube's AdmissionRequest type:
// kind, resource, subResource, requestKind, requestResource, requestSubResource, name,
// namespace, operation, userInfo, dryRun, options), namespaceObject (kube's Namespace type,
// or null), and optionally params (dyn) and authorizer / authorizer.requestResource (the
// authz library's types, answered by the server's authorizer). A policy's variables are
// composed as kube's: variables.<name> is evaluated lazily, at most once per evaluation, and
// each variable may use those declared before it.
//
// Compile errors read as kube's ("compilation failed: ERROR: <input>:1:3: ...", "must
// evaluate to bool but got int"), so validation reports them as kube-apiserver does.
// Evaluation is bounded by a per-expression cost limit (PerCallLimit) and a budget shared by
// the expressions of one request (RuntimeCELCostBudget, RuntimeCELCostBudgetMatchConditions).
package cel
