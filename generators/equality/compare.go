package equality

import (
	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/model"
)

// comparer emits the comparison of two values of one type. Values are named by Go expressions
// ("a.Spec", "(*a)", "a.Items[i]", "va") that are addressable, so that a fallback can take
// their address; nested loops get variables suffixed by depth.
type comparer struct {
	depth int
}

// stmts returns statements that `return false` unless the values a and b of type ref are
// equal as equality.Semantic.DeepEqual reports it for two fields of that type.
func (c *comparer) stmts(ref *model.TypeRef, a, b string) []jen.Code {
	switch ref.Kind {
	case model.Basic:
		return []jen.Code{returnFalseIf(jen.Id(a).Op("!=").Id(b))}
	case model.Named:
		return c.named(ref.Named, a, b)
	case model.Pointer:
		return c.pointer(ref.Elem, a, b)
	case model.Slice:
		return c.slice(ref.Elem, a, b)
	case model.Array:
		return c.array(ref.Elem, a, b)
	case model.Map:
		return c.mapping(ref.Elem, a, b)
	}
	return fallback(a, b)
}

// fallback compares a and b with equality.Semantic.DeepEqual(&a, &b): the walk it makes from
// the pointers is the one it makes for a field of their type.
func fallback(a, b string) []jen.Code {
	return []jen.Code{returnFalseIf(jen.Op("!").Add(deepEqual(jen.Op("&").Id(a), jen.Op("&").Id(b))))}
}

// special returns the comparison of two values of an external type Semantic has its own
// equality for, or that == compares exactly, or nil.
func special(t *model.Type, a, b string) jen.Code {
	switch t.Name.String() {
	case resourcePkg + ".Quantity":
		return returnFalseIf(jen.Id(a).Dot("Cmp").Call(jen.Id(b)).Op("!=").Lit(0))
	case metav1Pkg + ".Time", metav1Pkg + ".MicroTime":
		return returnFalseIf(jen.Id(a).Dot("UTC").Call().Op("!=").Id(b).Dot("UTC").Call())
	}
	if plainStruct(t) {
		// Only basic fields that equal themselves (metav1.TypeMeta, intstr.IntOrString): ==
		// is the field-by-field comparison.
		return returnFalseIf(jen.Id(a).Op("!=").Id(b))
	}
	return nil
}

// plainStruct reports whether t is a struct of another package whose fields are all exported
// and of basic types other than floats and complex numbers.
func plainStruct(t *model.Type) bool {
	if t.Local || t.Kind != model.Struct || t.HasUnexported || t.EmbedsUnexported || len(t.Fields) == 0 {
		return false
	}
	for _, f := range t.Fields {
		if !reflexiveBasic(f.Type) {
			return false
		}
	}
	return true
}

// named compares values of the named type t.
func (c *comparer) named(t *model.Type, a, b string) []jen.Code {
	if HasFunc(t) {
		return []jen.Code{returnFalseIf(jen.Op("!").Add(Call(t, jen.Op("&").Id(a), jen.Op("&").Id(b))))}
	}
	if s := special(t, a, b); s != nil {
		return []jen.Code{s}
	}
	switch {
	case t.Kind == model.Basic:
		return []jen.Code{returnFalseIf(jen.Id(a).Op("!=").Id(b))}
	case t.Local && t.Kind == model.Pointer && t.Underlying != nil:
		return c.stmts(t.Underlying, a, b)
	case flatStruct(t):
		var out []jen.Code
		for _, f := range t.Fields {
			out = append(out, c.stmts(f.Type, a+"."+f.Name, b+"."+f.Name)...)
		}
		return out
	}
	return fallback(a, b)
}

// flatStruct reports whether t is a struct of another package, with only exported fields,
// each of a basic type or a type special compares (metav1.Condition): its fields are compared
// inline, as the reflection walk compares them.
func flatStruct(t *model.Type) bool {
	if t.Local || t.Kind != model.Struct || t.HasUnexported || t.EmbedsUnexported || len(t.Fields) == 0 {
		return false
	}
	for _, f := range t.Fields {
		if _, ok := basicName(f.Type); ok {
			continue
		}
		if f.Type.Kind != model.Named || special(f.Type.Named, "a", "b") == nil {
			return false
		}
	}
	return true
}

// direct reports whether a pointer to elem is best compared by one call: the generated
// function of a local type, or equality.Semantic.DeepEqual for what it compares itself.
func direct(elem *model.TypeRef) (call func(a, b string) jen.Code, ok bool) {
	if elem.Kind == model.Interface {
		return func(a, b string) jen.Code { return jen.Op("!").Add(deepEqual(jen.Id(a), jen.Id(b))) }, true
	}
	if elem.Kind != model.Named {
		return nil, false
	}
	t := elem.Named
	if HasFunc(t) {
		return func(a, b string) jen.Code { return jen.Op("!").Add(Call(t, jen.Id(a), jen.Id(b))) }, true
	}
	if special(t, "a", "b") != nil || t.Kind == model.Basic || flatStruct(t) || (t.Local && t.Kind == model.Pointer && t.Underlying != nil) {
		return nil, false
	}
	return func(a, b string) jen.Code { return jen.Op("!").Add(deepEqual(jen.Id(a), jen.Id(b))) }, true
}

// hard reports whether the reflection walk treats a value of type ref as one that equals
// itself at the same address (a struct, slice, map or array).
func hard(ref *model.TypeRef) bool {
	switch ref.Kind {
	case model.Slice, model.Map, model.Array:
		return true
	case model.Named:
		return ref.Named.Kind == model.Struct || ref.Named.Kind == model.Slice || ref.Named.Kind == model.Map || ref.Named.Kind == model.Array
	}
	return false
}

// pointer compares two pointers to elem: both nil, or pointees equal.
func (c *comparer) pointer(elem *model.TypeRef, a, b string) []jen.Code {
	if call, ok := direct(elem); ok {
		return []jen.Code{returnFalseIf(call(a, b))}
	}
	cond := jen.Id(a).Op("!=").Nil()
	if hard(elem) {
		cond = cond.Op("&&").Id(a).Op("!=").Id(b)
	}
	return []jen.Code{
		returnFalseIf(jen.Parens(jen.Id(a).Op("==").Nil()).Op("!=").Parens(jen.Id(b).Op("==").Nil())),
		jen.If(cond).Block(c.stmts(elem, "(*"+a+")", "(*"+b+")")...),
	}
}

// slice compares two slices: nil and empty are equal, then lengths, then a shared first
// element (the same backing array), then element by element.
func (c *comparer) slice(elem *model.TypeRef, a, b string) []jen.Code {
	i := varName("i", c.depth)
	c.depth++
	each := c.stmts(elem, a+"["+i+"]", b+"["+i+"]")
	c.depth--
	return []jen.Code{
		returnFalseIf(jen.Len(jen.Id(a)).Op("!=").Len(jen.Id(b))),
		jen.If(jen.Len(jen.Id(a)).Op("!=").Lit(0).Op("&&").Op("&").Id(a).Index(jen.Lit(0)).Op("!=").Op("&").Id(b).Index(jen.Lit(0))).Block(
			jen.For(jen.Id(i).Op(":=").Range().Id(a)).Block(each...),
		),
	}
}

// array compares two arrays element by element.
func (c *comparer) array(elem *model.TypeRef, a, b string) []jen.Code {
	i := varName("i", c.depth)
	c.depth++
	each := c.stmts(elem, a+"["+i+"]", b+"["+i+"]")
	c.depth--
	return []jen.Code{jen.For(jen.Id(i).Op(":=").Range().Id(a)).Block(each...)}
}

// mapping compares two maps: nil and empty are equal, then lengths, then the same map, then
// every entry of a with b's entry of its key (a missing key makes them unequal).
func (c *comparer) mapping(elem *model.TypeRef, a, b string) []jen.Code {
	k, va, vb, ok := varName("k", c.depth), varName("va", c.depth), varName("vb", c.depth), varName("ok", c.depth)
	c.depth++
	each := c.stmts(elem, va, vb)
	c.depth--
	same := func(m string) *jen.Statement {
		return jen.Qual(reflectPkg, "ValueOf").Call(jen.Id(m)).Dot("UnsafePointer").Call()
	}
	body := append([]jen.Code{
		jen.List(jen.Id(vb), jen.Id(ok)).Op(":=").Id(b).Index(jen.Id(k)),
		returnFalseIf(jen.Op("!").Id(ok)),
	}, each...)
	return []jen.Code{
		returnFalseIf(jen.Len(jen.Id(a)).Op("!=").Len(jen.Id(b))),
		jen.If(jen.Len(jen.Id(a)).Op("!=").Lit(0).Op("&&").Add(same(a)).Op("!=").Add(same(b))).Block(
			jen.For(jen.List(jen.Id(k), jen.Id(va)).Op(":=").Range().Id(a)).Block(body...),
		),
	}
}
