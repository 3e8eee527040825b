// Package auth authenticates requests as kube-apiserver does: bearer tokens from a token file
// (--token-auth-file), x509 client certificates (--client-ca-file), front-proxy request
// headers (--requestheader-*), a TokenReview webhook (--authentication-token-webhook-config-file),
// anonymous requests (--anonymous-auth), and the union of the
// enabled ones, which the filter WithAuthentication runs on every request, putting the User
// in the request's context. It mirrors k8s.io/apiserver/pkg/authentication (authenticator,
// user, token/tokenfile, request/x509, request/headerrequest, request/union,
// request/anonymous, group) and k8s.io/apiserver/pkg/endpoints/filters.WithAuthentication.
//
// Package review (below) answers TokenReview and SelfSubjectReview; impersonation is the
// filter runtime/filters.WithImpersonation, after authentication.
package auth
