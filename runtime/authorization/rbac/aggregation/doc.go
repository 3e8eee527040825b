// Package aggregation is the clusterrole-aggregation controller, as kube-controller-manager's
// (pkg/controller/clusterroleaggregation): the rules of a ClusterRole with an aggregationRule
// are kept equal to the union of the rules of every other ClusterRole one of its
// clusterRoleSelectors matches, selector by selector, matching roles in name order, each rule
// once. Kubernetes' default admin, edit and view roles are built this way: a ClusterRole
// labelled rbac.authorization.k8s.io/aggregate-to-view: "true" extends view (and, view being
// labelled aggregate-to-edit, edit, and so admin).
//
// The controller lists ClusterRoles, then watches them; every change re-computes every
// aggregated ClusterRole from what it has seen, and writes those whose rules differ. It reads
// and writes through the unguarded Store (the server's own writer, exempt from the escalation
// checks, as kube's controller holds the escalate verb).
package aggregation
