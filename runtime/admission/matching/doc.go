// Package matching decides which admission webhooks and ValidatingAdmissionPolicies apply to a
// request, as k8s.io/apiserver's webhook predicates (rules, namespace and object selectors)
// and policy matching: a rule matches by operation, API group, version, resource and
// subresource ("*" and "res/*", "*/sub" wildcards) and scope; matchPolicy Equivalent also
// matches the same objects served under another version (or group) of the server, naming
// the kind the webhook or policy then sees; a namespace selector looks at the labels of the
// object's namespace (a Namespace's own on its create and update; cluster-scoped objects
// always match), an object selector at the labels of the new or the old object. Requests
// for the admission configuration resources themselves (webhook configurations, policies,
// bindings) are exempt, so that no webhook or policy can lock itself in.
package matching
