package equality

import (
	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/model"
)

// FieldEqual returns a Go expression equal to equality.Semantic.DeepEqual(obj, oldObj) for
// the values generated validation hands a field's closure (generators/validation): the field
// itself for a pointer, slice or map field, a pointer to it otherwise, oldObj being nil on
// create. It is
//
//   - SemanticEqual_T(obj, oldObj) for a field of a local struct (or named slice, map or array)
//     type T or a pointer to one;
//   - a nil check and == of the pointees for a basic field or a pointer to a basic value;
//   - slices.Equal or maps.Equal for slices and maps of basic values that cannot be NaN (the
//     reflection walk finds a slice or map equal to itself without looking at its elements);
//   - for other slices and maps, a function literal, called in place, comparing them as a
//     SemanticEqual_T compares a field of that type.
//
// It returns nil when it has no such expression; the caller keeps
// equality.Semantic.DeepEqual.
func FieldEqual(fieldType *model.TypeRef, obj, oldObj string) *jen.Statement {
	ref := fieldType
	if ref.Kind == model.Pointer {
		ref = ref.Elem
	}
	if ref.Kind == model.Named && HasFunc(ref.Named) {
		return Call(ref.Named, jen.Id(obj), jen.Id(oldObj))
	}
	if _, ok := basicName(ref); ok {
		// Two pointers: both nil, or both set to == values (NaN is not equal to itself).
		return jen.Parens(jen.Id(obj).Op("==").Nil()).Op("==").Parens(jen.Id(oldObj).Op("==").Nil()).Op("&&").
			Parens(jen.Id(obj).Op("==").Nil().Op("||").Op("*").Id(obj).Op("==").Op("*").Id(oldObj))
	}
	switch {
	case fieldType.Kind == model.Slice && reflexiveBasic(fieldType.Elem):
		return jen.Qual("slices", "Equal").Call(jen.Id(obj), jen.Id(oldObj))
	case fieldType.Kind == model.Map && reflexiveBasic(fieldType.Key) && reflexiveBasic(fieldType.Elem):
		return jen.Qual("maps", "Equal").Call(jen.Id(obj), jen.Id(oldObj))
	case fieldType.Kind == model.Slice || fieldType.Kind == model.Map:
		// Other slices and maps: the comparison a struct's field of that type gets, in a
		// function literal called in place.
		c := &comparer{}
		body := append(c.stmts(fieldType, obj, oldObj), jen.Return(jen.True()))
		return jen.Func().Params().Bool().Block(body...).Call()
	}
	return nil
}

// basicName returns the basic type of ref, a basic type or a named type over one (that no
// Semantic equality function is registered for; none of those is basic).
func basicName(ref *model.TypeRef) (string, bool) {
	switch {
	case ref.Kind == model.Basic:
		return ref.Basic, true
	case ref.Kind == model.Named && ref.Named.Kind == model.Basic && ref.Named.Underlying != nil && ref.Named.Underlying.Kind == model.Basic:
		return ref.Named.Underlying.Basic, true
	}
	return "", false
}

// reflexiveBasic reports whether ref is a basic type whose values are all equal to themselves
// (not a float or complex type, which have NaN).
func reflexiveBasic(ref *model.TypeRef) bool {
	name, ok := basicName(ref)
	if !ok {
		return false
	}
	switch name {
	case "float32", "float64", "complex64", "complex128":
		return false
	}
	return true
}
