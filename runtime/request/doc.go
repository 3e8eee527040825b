// Package request carries per-request facts through a context.Context: the namespace a
// request addresses, the parsed RequestInfo and the user the request comes from (User,
// WithUser, UserFrom, with the well-known user and group names), as
// k8s.io/apiserver/pkg/endpoints/request keeps WithUser and UserFrom beside RequestInfo. It
// imports no other runtime package, so every layer may use it.
package request
