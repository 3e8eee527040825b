// Package auth authenticates requests as kube-apiserver does: bearer tokens from a token file
// (--token-auth-file), x509 client certificates (--client-ca-file), front-proxy request
// headers (--requestheader-*), a TokenReview webhook (--authentication-token-webhook-config-file),
// anonymous requests (--anonymous-auth), and the union of the enabled ones, which the filter
// WithAuthentication runs on every request, putting the request.User in the request's
// context (runtime/request keeps the user beside RequestInfo, as k8s.io/apiserver's
// endpoints/request does). It mirrors k8s.io/apiserver/pkg/authentication (authenticator,
// token/tokenfile, request/x509, request/headerrequest, request/union,
// request/anonymous, group) and k8s.io/apiserver/pkg/endpoints/filters.WithAuthentication.
//
// Package review (below) answers TokenReview and SelfSubjectReview; impersonation is the
// filter runtime/filters.WithImpersonation, after authentication.
package auth
