// Package authorization decides whether a user may do what a request asks, as
// kube-apiserver's --authorization-mode: an Authorizer returns Allow, Deny or NoOpinion for
// the request's Attributes; Union runs several in order and the first decision wins; the
// filter WithAuthorization refuses with kube-apiserver's 403 Status. Webhook asks a
// SubjectAccessReview service. A RuleResolver lists the rules a user holds (for
// SelfSubjectRulesReview); AlwaysAllow, AlwaysDeny, RBAC and Union are resolvers, a webhook
// is not (its rules are incomplete).
//
// Below: rbac evaluates RBAC rules and holds Kubernetes' default roles; rbac/policybased
// guards the RBAC API's storage against escalation; rbac/aggregation is the
// clusterrole-aggregation controller.
package authorization
