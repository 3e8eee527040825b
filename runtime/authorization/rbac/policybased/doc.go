// Package policybased guards the storage of RBAC objects against privilege escalation, as
// kube-apiserver's pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/
// policybased storage: it wraps the generated registry.Store of each resource and checks
// every create and update (PUT, PATCH and server-side apply alike) before the store runs.
//
//   - Roles and ClusterRoles: the user must already hold every rule the role grants (in the
//     role's namespace; cluster-wide for a ClusterRole), unless they are in system:masters or
//     may `escalate` the role (verb escalate on roles or clusterroles). Setting or changing a
//     ClusterRole's aggregationRule needs every right (cluster-admin's).
//   - RoleBindings and ClusterRoleBindings: the user must already hold every rule of the role
//     the binding refers to (in the binding's namespace; cluster-wide for a
//     ClusterRoleBinding), unless they are in system:masters or may `bind` that role (verb
//     bind on roles or clusterroles, the name being the role's, in the binding's namespace).
//
// An update changing only metadata.ownerReferences and metadata.finalizers (what the garbage
// collector writes) is not checked. A refusal is 403 Forbidden with kube's message (`user
// "alice" (groups=[...]) is attempting to grant RBAC permissions not currently held: ...`).
// Rules are compared with k8s.io/component-helpers' Covers (rbac.ConfirmNoEscalation) over
// the policy read from storage at the time of the request.
package policybased
