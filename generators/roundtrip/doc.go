// Package roundtrip generates each group's round-trip test, zz_generated.roundtrip_test.go in
// the group's install package (<Group.InstallDir>, package install_test), as Kubernetes'
// pkg/apis/<group>/install/roundtrip_test.go runs apimachinery's apitesting/roundtrip with the
// group's fuzzer. Its TestRoundTrip calls runtime/roundtriptest.Run with the group's Install
// and one entry per kind: the kind's hub (the internal version, or in a group without one the
// kind's hub version, model.Group.HubOf), its storage version (model.Group.StorageVersionOf)
// and the served versions that have it (and the storage version when it is not served). Run
// fills random objects of each kind in the internal version and every served version,
// converts each to the hub and through every version's JSON and back, and fails with the
// field path of anything lost; `go test ./...` (the scaffold's make test) runs it.
//
// Value constraints a fuzzer cannot know (a field one version holds in coarser units, a range
// that validation enforces, a value a conversion rejects) come from the group's hand-written
// fuzzer package (model.Group.Fuzzer, <hub>/fuzzer, as Kubernetes' pkg/apis/<group>/fuzzer):
// when it declares Funcs, the test passes it as roundtriptest.Group.FuzzerFuncs.
package roundtrip
