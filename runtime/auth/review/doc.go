// Package review answers authentication.k8s.io/v1's reviews, as kube-apiserver's
// pkg/registry/authentication: TokenReview authenticates the token it carries with the
// server's own authenticators (the bearer tokens they accept: --token-auth-file, the token
// webhook) and SelfSubjectReview returns the requesting user (after impersonation). Install
// sets the Respond of the stores runtime/apis/authentication/v1/install builds.
package review
