// Package roundtriptest is the round-trip test apigen generates for every API group
// (zz_generated.roundtrip_test.go in the group's install package), as Kubernetes' per-group
// roundtrip_test.go runs k8s.io/apimachinery's apitesting/roundtrip with the group's fuzzer:
// random objects of every kind, in the internal version and every served version, are
// converted to the hub, into every other served version through its JSON, and back, and must
// come back unchanged. A lossy conversion fails with the field path of what was lost.
//
// Run is what the generated TestRoundTrip calls; Diff is the field-path comparison its
// failures print. Fuzzing starts from apimachinery's metafuzzer functions, then the group's
// own (its fuzzer package's Funcs, as Kubernetes' pkg/apis/<group>/fuzzer).
package roundtriptest
