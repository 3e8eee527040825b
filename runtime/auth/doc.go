// Package auth authenticates requests as kube-apiserver does: bearer tokens from a token file
// (--token-auth-file), x509 client certificates (--client-ca-file), front-proxy request
// headers (--requestheader-*), a TokenReview webhook (--authentication-token-webhook-config-file),
// anonymous requests (--anonymous-auth), and the union of the
// enabled ones, which the filter WithAuthentication runs on every request, putting the User
// in the request's context. It mirrors k8s.io/apiserver/pkg/authentication (authenticator,
// user, token/tokenfile, request/x509, request/headerrequest, request/union,
// request/anonymous, group) and k8s.io/apiserver/pkg/endpoints/filters.WithAuthentication.
//
// Status: the authenticators and the filter are built and tested; wiring them into the
// server's handler chain comes with TLS serving (issue 7).
package auth
