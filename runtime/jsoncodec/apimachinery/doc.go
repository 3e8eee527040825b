// Package apimachinery holds the generated JSON codecs (see runtime/jsoncodec) of the
// k8s.io/apimachinery structs every generated group uses: ObjectMeta, ListMeta, TypeMeta,
// Status, Condition, LabelSelector, the option types and the rest of what
// generators/jsoncodec/testdata/input/shared reaches. Generated codecs of API packages call
// its Encode<X> and Decode<X> functions directly; its init registers them, so Marshal and
// Unmarshal find them for a *metav1.Status too. Regenerate it with `go test
// ./generators/jsoncodec -run TestSharedCodecs -update`.
package apimachinery
