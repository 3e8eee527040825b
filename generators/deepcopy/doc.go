// Package deepcopy generates zz_generated.deepcopy.go in every API package (the hub and each
// version), as k8s.io/code-generator's deepcopy-gen does.
//
// For every struct, named slice and named map declared in the package it emits
//
//	func (in *T) DeepCopyInto(out *T) // copy the receiver into out; in must be non-nil
//	func (in *T) DeepCopy() *T        // nil for a nil receiver
//
// (value receivers for named slices and maps), and for root types — each version kind and
// its list, the hub types named like a version kind or list, and types marked
// +kubebuilder:object:root — also
//
//	func (in *T) DeepCopyObject() runtime.Object
//
// with a compile-time assertion that *T implements runtime.Object. A method the package
// already declares by hand is not generated again.
//
// Fields are copied by kind: basic values by the leading `*out = *in`; pointers with new and
// a copy of the pointee; slices with make and copy (or a per-element DeepCopyInto); maps with
// make and a per-entry copy; structs with DeepCopyInto. A type from another package is copied
// with its own DeepCopyInto when it has one, else by assignment when it holds no pointers,
// slices or maps. interface{} fields and external types that hold references but have no
// DeepCopyInto are reported as diagnostics at the field.
package deepcopy
