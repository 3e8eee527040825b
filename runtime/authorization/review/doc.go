// Package review answers authorization.k8s.io/v1's access reviews with the server's
// authorizer, as kube-apiserver's pkg/registry/authorization: SelfSubjectAccessReview (may
// the requesting user do this?), SubjectAccessReview and LocalSubjectAccessReview (may the
// user the review names?), and SelfSubjectRulesReview (the rules the requesting user holds
// in a namespace, from the authorizers that can list them: incomplete when one cannot).
// Install sets the Respond of the stores runtime/apis/authorization/v1/install builds.
package review
