// Package policy is the ValidatingAdmissionPolicy admission plugin, as k8s.io/apiserver's
// admission/plugin/policy/validating: it applies the ValidatingAdmissionPolicies stored in
// the server (admissionregistration.k8s.io/v1, read through caches fed by watches) to the
// requests their ValidatingAdmissionPolicyBindings select, in the validating phase, before
// the validating webhooks.
//
// For each policy (in name order) whose matchConstraints select the request (rules,
// matchPolicy Equivalent, namespace and object selectors, excludeResourceRules), and each of
// its bindings (in name order) whose matchResources select it too, the binding's parameters
// are found (paramRef by name or selector, in paramRef.namespace or the request's namespace
// for a namespaced paramKind; none for a policy without paramKind), and for each parameter
// object the policy's matchConditions, then its validations, are evaluated in CEL over
// object, oldObject (in the version the policy matched), request, params, namespaceObject,
// variables and authorizer, with kube's cost limits.
//
// A validation that is false is a failure with its reason (Invalid unless given), its
// message (messageExpression, else message, else "failed expression: <expression>"); the
// binding's validationActions decide: Deny refuses the request with
// `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<policy>' with binding
// '<binding>' denied request: <message>` and the reason's code (422 Invalid, 403 Forbidden,
// 401 Unauthorized, 413 RequestEntityTooLarge), Warn adds the warning `Validation failed for
// ValidatingAdmissionPolicy '<policy>' with binding '<binding>': <message>` to the response.
// An expression that cannot be evaluated, a missing paramKind resource or parameter
// (parameterNotFoundAction Deny), a match error: under failurePolicy Fail the request is
// refused (422, "failed to configure binding: ..." for configuration errors), under Ignore
// the binding is skipped. Requests for the admission configurations themselves are exempt.
//
// Not done: the Audit action and auditAnnotations are evaluated (their errors deny under
// Fail) but nothing is written to audit events (the runtime's audit log has no admission
// annotations); status.typeChecking is not computed; parameters of custom resource kinds are
// not found (paramKind must be a kind of the server's typed groups).
package policy
