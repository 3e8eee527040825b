// Package equality generates zz_generated.equality.go in every API package (the hub and each
// version) that declares a struct, named slice, named map or named array: reflection-free
// functions that answer exactly what k8s.io/apimachinery's equality.Semantic.DeepEqual answers.
//
// For every such type T it emits
//
//	func SemanticEqual_T(a, b *T) bool // as equality.Semantic.DeepEqual(a, b)
//
// The generated strategy (generators/install) bumps metadata.generation with
// SemanticEqual_<Spec>, and generated validation (generators/validation) ratchets unchanged
// values with it: equality.Semantic.DeepEqual walks values by reflection and allocates for
// every map key and index, which made it ~7% of an update's CPU and allocations.
//
// The semantics are those of apimachinery's forked reflect.DeepEqual with Semantic's
// equalities (pkg/api/equality/semantic.go, third_party/forked/golang/reflect/deep_equal.go):
//
//   - two nil pointers are equal, a nil and a non-nil pointer are not, other pointers are equal
//     when their pointees are (a pointer to a struct, slice, map or array is equal to itself);
//   - a nil and an empty slice or map are equal; slices sharing their first element are equal;
//     maps that are the same map are equal; otherwise lengths, then elements or entries (a key
//     missing from b makes them unequal) are compared;
//   - basic values compare with == (NaN is not equal to itself), arrays element by element,
//     structs field by field;
//   - resource.Quantity compares with Cmp, metav1.Time and metav1.MicroTime by their UTC times,
//     structs of other packages with only basic non-float fields (metav1.TypeMeta,
//     intstr.IntOrString) with ==, and those with only such fields, quantities and times
//     (metav1.Condition) field by field;
//   - interface values, other types of other packages (metav1.ObjectMeta, ...) and structs with
//     unexported fields are compared by equality.Semantic.DeepEqual itself, given pointers so
//     that the walk is the one it makes for a field and the values are not copied.
//
// A SemanticEqual_T the package already declares by hand is not generated again, and is
// called for T's values.
package equality
