// Package conversion generates zz_generated.conversion.go in every version package of a group
// that has a separate hub ("internal") package, as k8s.io/code-generator's conversion-gen.
//
// A group of several versions without a hub package (kubebuilder's and Gateway API's layout)
// converts each kind between the versions that have it and its hub version
// (model.Group.HubOf: the kind's storage version unless a root type has Hub), field by field,
// as a CRD's None conversion between versions of the same schema: the root type, its list, and
// every struct type their fields reach as same-named types of the two packages. The functions
// between two versions go in the one whose hand-written files import the other, directly or
// through the group's other versions (Gateway API's v1beta1, which declares
// `type HTTPRoute v1.HTTPRoute` and aliases v1's other types: those are assigned as they are),
// else in the less preferred one, so generated imports never close a cycle with hand-written ones.
//
// controller-runtime's conversion model (kubebuilder's multi-version APIs): when a spoke's root
// type has ConvertTo(dst conversion.Hub) error and ConvertFrom(src conversion.Hub) error
// (model.Type.Convertible, matched by shape) and its hub version's root type has Hub, the
// root types convert through them, as controller-runtime's conversion webhook calls them:
// spoke to hub `in.DeepCopy().ConvertTo(out)`, hub to spoke `out.ConvertFrom(in.DeepCopy())`
// (copies, since the user's functions may alias or change their input). Their fields are not
// walked, so fields the versions do not share are no diagnostics; the list converts item by
// item through them. The generated code imports nothing but the two version packages and
// apimachinery. Conversions between two spokes go through the hub, as the server only ever
// converts between a version and the hub. A Convertible spoke whose hub lacks Hub is a
// diagnostic naming the method to write.
//
// For every exported struct type T of the version package with a same-named struct in the hub
// package (or every pair found as above) it emits, in both directions:
//
//   - autoConvert_<from>_<T>_To_<to>_<T>, always: fields matched by Go name, identical types
//     assigned, peer local types converted through their Convert_ function, or cast when they
//     are not structs and their underlying types are identical (pointers, slices and maps
//     element by element; map keys of peer types such as `type LabelKey string` cast),
//     metav1.TypeMeta skipped;
//   - Convert_<from>_<T>_To_<to>_<T>, calling the autoConvert_ function, unless the version
//     package declares a hand-written function of that name, which then replaces it;
//   - RegisterConversions, registering every pair with the scheme (generated ones with
//     AddGeneratedConversionFunc, hand-written ones with AddConversionFunc), and an init that
//     adds it to the package's localSchemeBuilder (declared by the register generator).
//
// A field without a peer field, or whose types cannot be converted automatically, is a
// model.Diagnostic at the field naming the Convert_ function to write; when that hand-written
// function already exists, the generated autoConvert_ carries a "WARNING: ... requires manual
// conversion" comment instead, as conversion-gen does.
package conversion
