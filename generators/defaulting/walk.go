package defaulting

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/model"
)

// target is the Go expression of a value being defaulted: an addressable value of the type
// being walked, or, when ptr is set, a non-nil pointer to one.
type target struct {
	expr string
	ptr  bool
}

// addr is the expression of a pointer to the target.
func (t target) addr() string {
	if t.ptr {
		return t.expr
	}
	return "&" + t.expr
}

// value is the expression of the target's value, parenthesised so it can be indexed.
func (t target) value() string {
	if t.ptr {
		return "(*" + t.expr + ")"
	}
	return t.expr
}

// walker emits the body of one SetObjectDefaults_ function.
type walker struct {
	g *pkgGen
	// root is the root type whose function is being emitted; other roots are defaulted by a
	// call to their own function.
	root *model.Type
	// depth counts the enclosing loops, to name loop variables i, i1, i2, ...
	depth int
}

// typeStmts returns the statements defaulting the value at of type t: t's SetDefaults_ hook,
// then each field's default and nested defaults. stack holds the types being walked.
func (w *walker) typeStmts(t *model.Type, at target, stack map[*model.Type]bool) []jen.Code {
	if t != w.root && w.g.withDefaults[t] {
		return []jen.Code{jen.Id(objectDefaultsName(t)).Call(jen.Id(at.addr()))}
	}
	if stack[t] {
		return nil
	}
	stack[t] = true
	defer delete(stack, t)
	var stmts []jen.Code
	if w.g.hasHook(t) {
		stmts = append(stmts, jen.Qual(t.Name.Package, hookName(t)).Call(jen.Id(at.addr())))
	}
	if t.Kind != model.Struct {
		if t.Underlying != nil {
			stmts = append(stmts, w.refStmts(t.Underlying, at.value(), stack)...)
		}
		return stmts
	}
	for _, f := range t.Fields {
		expr := at.expr + "." + f.Name
		if f.Markers.Default != nil {
			stmts = append(stmts, w.g.defaultStmt(f.Type, expr, *f.Markers.Default))
		}
		stmts = append(stmts, w.refStmts(f.Type, expr, stack)...)
	}
	return stmts
}

// refStmts returns the statements defaulting what lies below expr, an addressable value of
// type ref: nothing when no default applies there.
func (w *walker) refStmts(ref *model.TypeRef, expr string, stack map[*model.Type]bool) []jen.Code {
	if !w.g.refHasDefaults(ref, stack) {
		return nil
	}
	switch ref.Kind {
	case model.Named:
		return w.typeStmts(ref.Named, target{expr: expr}, stack)
	case model.Pointer:
		var inner []jen.Code
		if ref.Elem.Kind == model.Named {
			inner = w.typeStmts(ref.Elem.Named, target{expr: expr, ptr: true}, stack)
		} else {
			inner = w.refStmts(ref.Elem, "(*"+expr+")", stack)
		}
		return []jen.Code{jen.If(jen.Id(expr).Op("!=").Nil()).Block(inner...)}
	case model.Slice, model.Array:
		i := w.loopVar("i")
		w.depth++
		inner := w.refStmts(ref.Elem, expr+"["+i+"]", stack)
		w.depth--
		return []jen.Code{jen.For(jen.Id(i).Op(":=").Range().Id(expr)).Block(inner...)}
	case model.Map:
		return w.mapStmts(ref, expr, stack)
	}
	return nil
}

// mapStmts defaults the values of the map at expr. Values that are structs or arrays are
// copied out, defaulted and stored back; pointers, slices and maps are defaulted in place.
func (w *walker) mapStmts(ref *model.TypeRef, expr string, stack map[*model.Type]bool) []jen.Code {
	key, val := w.loopVar("key"), w.loopVar("val")
	w.depth++
	defer func() { w.depth-- }()
	inner := w.refStmts(ref.Elem, val, stack)
	if !copiedByValue(ref.Elem) {
		return []jen.Code{jen.For(jen.List(jen.Id("_"), jen.Id(val)).Op(":=").Range().Id(expr)).Block(inner...)}
	}
	inner = append(inner, jen.Id(expr).Index(jen.Id(key)).Op("=").Id(val))
	return []jen.Code{jen.For(jen.List(jen.Id(key), jen.Id(val)).Op(":=").Range().Id(expr)).Block(inner...)}
}

// copiedByValue reports whether a map value of type ref must be stored back after defaulting
// its copy: a struct or an array.
func copiedByValue(ref *model.TypeRef) bool {
	if ref.Kind == model.Named {
		if ref.Named.Kind == model.Struct {
			return true
		}
		if ref.Named.Underlying == nil {
			return false
		}
		ref = ref.Named.Underlying
	}
	return ref.Kind == model.Array
}

// loopVar names a loop variable at the current depth: base, then base1, base2, ...
func (w *walker) loopVar(base string) string {
	if w.depth == 0 {
		return base
	}
	return base + strconv.Itoa(w.depth)
}
