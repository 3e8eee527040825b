// Package authorization decides whether a user may do what a request asks, as
// kube-apiserver's --authorization-mode: an Authorizer returns Allow, Deny or NoOpinion for
// the request's Attributes; Union runs several in order and the first decision wins; the
// filter WithAuthorization refuses with kube-apiserver's 403 Status. Package rbac (below)
// evaluates RBAC rules.
//
// Status: built and tested; wiring into the handler chain, the served RBAC API types and the
// flags come with the rest of issue 7. Webhook asks a SubjectAccessReview service.
package authorization
