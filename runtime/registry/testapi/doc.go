// Package testapi is a small API group, "test.apigen.dev", used only by the runtime's own
// tests, as k8s.io/apiserver's pkg/apis/example: a namespaced Widget with a status
// subresource and a cluster-scoped Gadget. This package holds the internal (hub) types, with JSON
// tags as kube's internal types have, and their strategies; v1 and v1beta1 (where Widget's spec.color is spelled spec.colour) hold
// the served versions with hand-written deep-copy, conversion and defaulting; install builds
// the Scheme and the registry.APIGroupInfo.
package testapi
