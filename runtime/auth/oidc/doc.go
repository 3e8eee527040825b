// Package oidc authenticates bearer JWTs from OpenID Connect issuers, as kube-apiserver's
// structured authentication configuration (--authentication-config, an
// apiserver.config.k8s.io AuthenticationConfiguration) and its legacy --oidc-* flags.
//
// Verification, claim validation rules and claim mappings (claims or CEL expressions) are
// kube's own: k8s.io/apiserver/plugin/pkg/authenticator/token/oidc over
// github.com/coreos/go-oidc, with the config types and validation of
// k8s.io/apiserver/pkg/apis/apiserver. That plugin pulls in a few leaf packages of
// k8s.io/apiserver (authentication/cel, token/jwt, features, server/egressselector for its
// dialer option) but none of its framework (server, endpoints, registry, storage); the
// runtime's import test lists them. What this package adds is kube-apiserver's wiring
// (pkg/kubeapiserver/authenticator and options): loading and validating the file, the
// legacy flags' translation, the bearer-token front, and reloading the file on change.
package oidc
