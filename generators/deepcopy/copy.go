package deepcopy

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// copyKind is how a value of some type is deep-copied.
type copyKind int

const (
	shallow    copyKind = iota // assignment suffices
	viaMethod                  // the type's DeepCopyInto
	viaPointer                 // new, then copy the pointee
	viaSlice                   // make, then copy or copy each element
	viaMap                     // make, then copy each entry
	viaArray                   // assign, then deep-copy each element
	uncopyable                 // a diagnostic
)

// classify returns how a value of type ref is deep-copied and, for the structural kinds, the
// type expression whose Elem and Key to follow (the underlying type of a named one). For
// uncopyable it returns the reason instead.
func (g *pkgGen) classify(ref *model.TypeRef) (copyKind, *model.TypeRef, string) {
	switch ref.Kind {
	case model.Basic:
		return shallow, ref, ""
	case model.Interface:
		return uncopyable, ref, "an interface value cannot be deep-copied; use a concrete type or runtime.RawExtension"
	case model.Pointer:
		return viaPointer, ref, ""
	case model.Slice:
		return viaSlice, ref, ""
	case model.Map:
		return viaMap, ref, ""
	case model.Array:
		if k, _, why := g.classify(ref.Elem); k == shallow || k == uncopyable {
			return k, ref, why
		}
		return viaArray, ref, ""
	case model.Named:
		return g.classifyNamed(ref.Named)
	}
	return uncopyable, ref, fmt.Sprintf("type %s has unsupported shape %s", ref, ref.Kind)
}

// classifyNamed classifies a reference to the named type t.
func (g *pkgGen) classifyNamed(t *model.Type) (copyKind, *model.TypeRef, string) {
	self := &model.TypeRef{Kind: model.Named, Named: t}
	if t.Kind != model.Struct {
		if t.Underlying == nil {
			if t.HasMethod("DeepCopyInto") {
				return viaMethod, self, ""
			}
			return shallow, self, ""
		}
		k, _, why := g.classify(t.Underlying)
		if k == uncopyable {
			return k, self, why
		}
		if k == viaMethod || k == shallow {
			return k, self, ""
		}
		return k, t.Underlying, ""
	}
	if !t.Local && t.HasMethod("DeepCopyInto") {
		return viaMethod, self, ""
	}
	if !g.hasRefs(t, map[*model.Type]bool{}) {
		return shallow, self, ""
	}
	if t.Local {
		return viaMethod, self, ""
	}
	return uncopyable, self, fmt.Sprintf("external type %s holds pointers, slices or maps and has no DeepCopyInto method; add one or use another type", t.Name)
}

// hasRefs reports whether a value of struct type t shares memory when assigned: whether a
// field, at any depth, is a pointer, slice, map or interface (or an external type that copies
// itself with DeepCopyInto). seen breaks cycles.
func (g *pkgGen) hasRefs(t *model.Type, seen map[*model.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	for _, f := range t.Fields {
		ref := f.Type
		for ref.Kind == model.Array {
			ref = ref.Elem
		}
		switch ref.Kind {
		case model.Basic:
		case model.Named:
			n := ref.Named
			switch {
			case !n.Local && n.HasMethod("DeepCopyInto"):
				return true
			case n.Kind == model.Struct:
				if g.hasRefs(n, seen) {
					return true
				}
			case n.Underlying != nil && n.Underlying.Kind != model.Basic:
				return true
			}
		default:
			return true
		}
	}
	return false
}

// fieldCopy returns the statements of a struct's DeepCopyInto that deep-copy field fld of t,
// after the leading `*out = *in`; none when that assignment suffices.
func (g *pkgGen) fieldCopy(t *model.Type, fld *model.Field) []jen.Code {
	k, _, why := g.classify(fld.Type)
	name := fld.Name
	at := site{pos: fld.Pos, what: "field " + t.Name.Name + "." + name}
	switch k {
	case shallow:
		return nil
	case uncopyable:
		g.problem(at, fld.Type, why)
		return nil
	case viaMethod:
		return []jen.Code{jen.Id("in").Dot(name).Dot("DeepCopyInto").Call(jen.Op("&").Id("out").Dot(name))}
	}
	rebind := jen.List(jen.Id("in"), jen.Id("out")).Op(":=").List(jen.Op("&").Id("in").Dot(name), jen.Op("&").Id("out").Dot(name))
	body := append([]jen.Code{rebind}, g.copyTo(fld.Type, at)...)
	if k == viaArray {
		return []jen.Code{jen.Block(body...)}
	}
	return []jen.Code{jen.If(jen.Id("in").Dot(name).Op("!=").Nil()).Block(body...)}
}

// site is where a copy is generated for, to report problems at: a field or a named type.
type site struct {
	pos  model.Position
	what string // "field Spec.Backup", "type Names"
}

// problem records a diagnostic at s: a value of type ref, there or below it, cannot be copied.
func (g *pkgGen) problem(s site, ref *model.TypeRef, why string) {
	g.diags = append(g.diags, model.Diagnostic{
		Pos:     s.pos,
		Message: fmt.Sprintf("cannot generate deepcopy for %s (%s): %s", s.what, ref, why),
	})
}

// copyTo returns statements that make *out a deep copy of *in, where in and out are variables
// of type *ref in scope. A part that cannot be copied is reported at at.
func (g *pkgGen) copyTo(ref *model.TypeRef, at site) []jen.Code {
	k, under, why := g.classify(ref)
	switch k {
	case shallow:
		return []jen.Code{jen.Op("*").Id("out").Op("=").Op("*").Id("in")}
	case viaMethod:
		return []jen.Code{jen.Id("in").Dot("DeepCopyInto").Call(jen.Id("out"))}
	case viaPointer:
		return g.copyPointer(under.Elem, at)
	case viaSlice:
		return g.copyElems(ref, under.Elem, at, true)
	case viaArray:
		return g.copyElems(ref, under.Elem, at, false)
	case viaMap:
		return g.copyMap(ref, under.Elem, at)
	}
	g.problem(at, ref, why)
	return nil
}

// copyPointer copies *in into *out for pointers to elem.
func (g *pkgGen) copyPointer(elem *model.TypeRef, at site) []jen.Code {
	stmts := []jen.Code{jen.Op("*").Id("out").Op("=").New(emit.TypeRef(elem))}
	switch k, _, _ := g.classify(elem); k {
	case shallow:
		return append(stmts, jen.Op("**").Id("out").Op("=").Op("**").Id("in"))
	case viaMethod:
		return append(stmts, jen.Parens(jen.Op("*").Id("in")).Dot("DeepCopyInto").Call(jen.Op("*").Id("out")))
	case viaArray:
		return append(stmts, jen.Block(nested(jen.Op("*").Id("in"), jen.Op("*").Id("out"), g.copyTo(elem, at))...))
	case uncopyable:
		return append(stmts, g.copyTo(elem, at)...)
	}
	return append(stmts, jen.If(jen.Op("**").Id("in").Op("!=").Nil()).Block(
		nested(jen.Op("*").Id("in"), jen.Op("*").Id("out"), g.copyTo(elem, at))...))
}

// copyElems copies the slice (or array) *in into *out element by element; ref names the
// slice type for make.
func (g *pkgGen) copyElems(ref, elem *model.TypeRef, at site, isSlice bool) []jen.Code {
	var stmts []jen.Code
	if isSlice {
		stmts = append(stmts, jen.Op("*").Id("out").Op("=").Make(emit.TypeRef(ref), jen.Len(jen.Op("*").Id("in"))))
	} else {
		stmts = append(stmts, jen.Op("*").Id("out").Op("=").Op("*").Id("in"))
	}
	inI := jen.Parens(jen.Op("*").Id("in")).Index(jen.Id("i"))
	outI := jen.Parens(jen.Op("*").Id("out")).Index(jen.Id("i"))
	var each jen.Code
	switch k, _, _ := g.classify(elem); k {
	case shallow:
		if isSlice {
			stmts = append(stmts, jen.Copy(jen.Op("*").Id("out"), jen.Op("*").Id("in")))
		}
		return stmts
	case viaMethod:
		each = jen.Add(inI).Dot("DeepCopyInto").Call(jen.Op("&").Add(outI))
	case viaArray, uncopyable:
		each = jen.Block(nested(jen.Op("&").Add(inI), jen.Op("&").Add(outI), g.copyTo(elem, at))...)
	default:
		each = jen.If(jen.Add(inI).Op("!=").Nil()).Block(
			nested(jen.Op("&").Add(inI), jen.Op("&").Add(outI), g.copyTo(elem, at))...)
	}
	return append(stmts, jen.For(jen.Id("i").Op(":=").Range().Op("*").Id("in")).Block(each))
}

// copyMap copies the map *in into *out entry by entry; ref names the map type for make.
func (g *pkgGen) copyMap(ref, elem *model.TypeRef, at site) []jen.Code {
	stmts := []jen.Code{jen.Op("*").Id("out").Op("=").Make(emit.TypeRef(ref), jen.Len(jen.Op("*").Id("in")))}
	outKey := jen.Parens(jen.Op("*").Id("out")).Index(jen.Id("key"))
	var body []jen.Code
	switch k, _, _ := g.classify(elem); k {
	case shallow:
		body = []jen.Code{jen.Add(outKey).Op("=").Id("val")}
	case viaMethod:
		body = []jen.Code{
			jen.Var().Id("outVal").Add(emit.TypeRef(elem)),
			jen.Id("val").Dot("DeepCopyInto").Call(jen.Op("&").Id("outVal")),
			jen.Add(outKey).Op("=").Id("outVal"),
		}
	default:
		inner := nested(jen.Op("&").Id("val"), jen.Op("&").Id("outVal"), g.copyTo(elem, at))
		var copyVal jen.Code = jen.Block(inner...)
		if k != viaArray && k != uncopyable {
			copyVal = jen.If(jen.Id("val").Op("!=").Nil()).Block(inner...)
		}
		body = []jen.Code{jen.Var().Id("outVal").Add(emit.TypeRef(elem)), copyVal, jen.Add(outKey).Op("=").Id("outVal")}
	}
	return append(stmts, jen.For(jen.List(jen.Id("key"), jen.Id("val")).Op(":=").Range().Op("*").Id("in")).Block(body...))
}

// nested prefixes stmts with `in, out := inExpr, outExpr`, rebinding in and out for a nested
// copy, as deepcopy-gen's output does.
func nested(inExpr, outExpr *jen.Statement, stmts []jen.Code) []jen.Code {
	return append([]jen.Code{jen.List(jen.Id("in"), jen.Id("out")).Op(":=").List(inExpr, outExpr)}, stmts...)
}
