// Package conversion generates zz_generated.conversion.go in every version package of a group
// that has a separate hub ("internal") package, as k8s.io/code-generator's conversion-gen.
//
// For every exported struct type T of the version package with a same-named struct in the hub
// package it emits, in both directions:
//
//   - autoConvert_<from>_<T>_To_<to>_<T>, always: fields matched by Go name, identical types
//     assigned, peer local types converted through their Convert_ function (pointers, slices
//     and maps element by element), metav1.TypeMeta skipped;
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
