// Package request carries per-request facts through a context.Context: the namespace a
// request addresses and the parsed RequestInfo, as k8s.io/apiserver/pkg/endpoints/request.
package request
