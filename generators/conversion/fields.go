package conversion

import (
	"fmt"
	"path"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// converter emits the autoConvert_ bodies between the types of package ver, which the file
// is in, and those of package hub (the group's internal package, or, in a group without one,
// another version package), and collects the diagnostics of fields it cannot convert.
type converter struct {
	hub, ver *model.Package
	// internal is set when hub is the group's internal package: messages call it "hub".
	internal bool
	diags    model.Diagnostics
}

// autoConvert emits autoConvert_<from>_<T>_To_<to>_<T>: one statement block per field of the
// source type, in declaration order.
func (c *converter) autoConvert(d direction) jen.Code {
	var body []jen.Code
	for _, f := range d.from.Fields {
		if isTypeMeta(f.Type) {
			continue
		}
		peer := d.to.Field(f.Name)
		if peer == nil {
			body = append(body, c.unconvertible(d, f, "does not exist in peer-type",
				fmt.Sprintf("the %s type has no field %s", c.side(d.toPkg), f.Name))...)
			continue
		}
		stmts, ok := c.convertValue("in."+f.Name, "out."+f.Name, f.Type, peer.Type)
		if !ok {
			body = append(body, c.unconvertible(d, f, fmt.Sprintf("has type %s in the peer type", shortType(peer.Type)),
				fmt.Sprintf("the %s field has type %s", c.side(d.toPkg), shortType(peer.Type)))...)
			continue
		}
		body = append(body, stmts...)
	}
	body = append(body, jen.Return(jen.Nil()))
	return jen.Func().Id(d.autoName()).Add(convertParams(d)).Error().Block(body...)
}

// side names a package in messages: "hub" for the internal package, else its name.
func (c *converter) side(p *model.Package) string {
	if p == c.hub && c.internal {
		return "hub"
	}
	return p.Name
}

// unconvertible handles a field the generated code cannot convert: a WARNING comment when the
// package has a hand-written Convert_ for the enclosing type in this direction, else a
// diagnostic at the field naming the function to write.
func (c *converter) unconvertible(d direction, f *model.Field, warning, reason string) []jen.Code {
	if c.ver.HasFunc(d.publicName()) {
		return []jen.Code{jen.Comment(fmt.Sprintf("WARNING: in.%s requires manual conversion: %s", f.Name, warning))}
	}
	msg := fmt.Sprintf("cannot convert %s.%s (%s) to %s.%s: %s; write func %s%s error in package %s "+
		"(it may call the generated %s)",
		d.fromPkg.Name, d.from.Name.Name+"."+f.Name, shortType(f.Type), d.toPkg.Name, d.to.Name.Name, reason,
		d.publicName(), c.signature(d), c.ver.Name, d.autoName())
	c.diags = append(c.diags, model.Diagnostic{Pos: f.Pos, Message: msg})
	return nil
}

// signature renders "(in *A, out *b.B, s conversion.Scope)" as written in the version package.
func (c *converter) signature(d direction) string {
	name := func(p *model.Package, t *model.Type) string {
		if p == c.ver {
			return t.Name.Name
		}
		return p.Name + "." + t.Name.Name
	}
	return fmt.Sprintf("(in *%s, out *%s, s conversion.Scope)", name(d.fromPkg, d.from), name(d.toPkg, d.to))
}

// shortType renders a type reference with package names instead of paths
// ("*resource.Quantity", "map[string]v1.Condition").
func shortType(r *model.TypeRef) string {
	switch r.Kind {
	case model.Named:
		return path.Base(r.Named.Name.Package) + "." + r.Named.Name.Name
	case model.Pointer:
		return "*" + shortType(r.Elem)
	case model.Slice:
		return "[]" + shortType(r.Elem)
	case model.Array:
		return fmt.Sprintf("[%d]%s", r.Len, shortType(r.Elem))
	case model.Map:
		return "map[" + shortType(r.Key) + "]" + shortType(r.Elem)
	}
	return r.String()
}

func isTypeMeta(r *model.TypeRef) bool {
	return r.Kind == model.Named && r.Named.Name == model.TypeName{Package: metav1Pkg, Name: "TypeMeta"}
}

// identical reports whether a and b are the same Go type: same shape, same named types.
func identical(a, b *model.TypeRef) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case model.Basic:
		return a.Basic == b.Basic
	case model.Named:
		return a.Named.Name == b.Named.Name
	case model.Pointer, model.Slice:
		return identical(a.Elem, b.Elem)
	case model.Array:
		return a.Len == b.Len && identical(a.Elem, b.Elem)
	case model.Map:
		return identical(a.Key, b.Key) && identical(a.Elem, b.Elem)
	case model.Interface:
		return true
	}
	return false
}

// peers reports whether a and b name same-named local types, one of package ver and the other
// of package hub: the pairs this file declares Convert_ functions for (or casts, for
// non-struct types).
func (c *converter) peers(a, b *model.TypeRef) bool {
	if a.Kind != model.Named || b.Kind != model.Named || !a.Named.Local || !b.Named.Local || a.Named.Name.Name != b.Named.Name.Name {
		return false
	}
	pa, pb := a.Named.Name.Package, b.Named.Name.Package
	return pa != pb && (pa == c.ver.Path || pa == c.hub.Path) && (pb == c.ver.Path || pb == c.hub.Path)
}

// convertValue returns the statements converting the addressable expression in (of type a)
// into out (of type b), or false when the types cannot be converted automatically.
func (c *converter) convertValue(in, out string, a, b *model.TypeRef) ([]jen.Code, bool) {
	switch {
	case identical(a, b):
		return []jen.Code{jen.Id(out).Op("=").Id(in)}, true
	case c.peers(a, b):
		return convertPeer(in, out, a.Named, b.Named)
	case a.Kind == model.Pointer && b.Kind == model.Pointer:
		return c.convertPointer(in, out, a, b)
	case a.Kind == model.Slice && b.Kind == model.Slice:
		return c.convertSlice(in, out, a, b)
	case a.Kind == model.Map && b.Kind == model.Map:
		return c.convertMap(in, out, a, b)
	}
	return nil, false
}

// convertPeer calls the Convert_ function of a peer struct, or casts a peer named type whose
// underlying types are identical (type Engine string).
func convertPeer(in, out string, a, b *model.Type) ([]jen.Code, bool) {
	if a.Kind == model.Struct && b.Kind == model.Struct {
		name := "Convert_" + pkgName(a) + "_" + a.Name.Name + "_To_" + pkgName(b) + "_" + b.Name.Name
		return []jen.Code{jen.If(
			jen.Err().Op(":=").Id(name).Call(jen.Id(addr(in)), jen.Id(addr(out)), jen.Id("s")),
			jen.Err().Op("!=").Nil(),
		).Block(jen.Return(jen.Err()))}, true
	}
	if cast := peerCast(a, b); cast != nil {
		return []jen.Code{jen.Id(out).Op("=").Add(cast).Call(jen.Id(in))}, true
	}
	return nil, false
}

// peerCast returns the conversion expression (the type name) turning a value of peer type a
// into b when both are non-struct types with identical underlying types, else nil.
func peerCast(a, b *model.Type) jen.Code {
	if a.Kind != model.Struct && b.Kind != model.Struct && a.Underlying != nil && b.Underlying != nil &&
		identical(a.Underlying, b.Underlying) {
		return emit.Qual(b)
	}
	return nil
}

// pkgName is the package name conversion function names use for a local type: the last
// element of its import path, which is the package name of every API package apigen loads.
func pkgName(t *model.Type) string { return path.Base(t.Name.Package) }

// convertPointer: nil stays nil, else a new element converted from *in.
func (c *converter) convertPointer(in, out string, a, b *model.TypeRef) ([]jen.Code, bool) {
	elem, ok := c.convertValue("**in", "**out", a.Elem, b.Elem)
	if !ok {
		return nil, false
	}
	body := append([]jen.Code{
		jen.List(jen.Id("in"), jen.Id("out")).Op(":=").List(jen.Id(addr(in)), jen.Id(addr(out))),
		jen.Op("*").Id("out").Op("=").New(emit.TypeRef(b.Elem)),
	}, elem...)
	return nilGuard(in, out, body), true
}

// convertSlice: nil stays nil, else a slice of the same length converted element by element.
func (c *converter) convertSlice(in, out string, a, b *model.TypeRef) ([]jen.Code, bool) {
	elem, ok := c.convertValue("(*in)[i]", "(*out)[i]", a.Elem, b.Elem)
	if !ok {
		return nil, false
	}
	body := []jen.Code{
		jen.List(jen.Id("in"), jen.Id("out")).Op(":=").List(jen.Id(addr(in)), jen.Id(addr(out))),
		jen.Op("*").Id("out").Op("=").Make(emit.TypeRef(b), jen.Len(jen.Op("*").Id("in"))),
		jen.For(jen.Id("i").Op(":=").Range().Op("*").Id("in")).Block(elem...),
	}
	return nilGuard(in, out, body), true
}

// convertMap: nil stays nil, else a map with every value converted. Keys of identical types
// are kept; keys of peer named types with identical underlying types (type LabelKey string in
// both packages) are cast.
func (c *converter) convertMap(in, out string, a, b *model.TypeRef) ([]jen.Code, bool) {
	key := jen.Id("key")
	switch {
	case identical(a.Key, b.Key):
	case c.peers(a.Key, b.Key) && peerCast(a.Key.Named, b.Key.Named) != nil:
		key = jen.Add(peerCast(a.Key.Named, b.Key.Named)).Call(jen.Id("key"))
	default:
		return nil, false
	}
	elem, ok := c.convertValue("val", "*newVal", a.Elem, b.Elem)
	if !ok {
		return nil, false
	}
	loop := append([]jen.Code{jen.Id("newVal").Op(":=").New(emit.TypeRef(b.Elem))}, elem...)
	loop = append(loop, jen.Parens(jen.Op("*").Id("out")).Index(key).Op("=").Op("*").Id("newVal"))
	body := []jen.Code{
		jen.List(jen.Id("in"), jen.Id("out")).Op(":=").List(jen.Id(addr(in)), jen.Id(addr(out))),
		jen.Op("*").Id("out").Op("=").Make(emit.TypeRef(b), jen.Len(jen.Op("*").Id("in"))),
		jen.For(jen.List(jen.Id("key"), jen.Id("val")).Op(":=").Range().Op("*").Id("in")).Block(loop...),
	}
	return nilGuard(in, out, body), true
}

// nilGuard wraps body in `if in != nil { body } else { out = nil }`.
func nilGuard(in, out string, body []jen.Code) []jen.Code {
	return []jen.Code{jen.If(jen.Id(in).Op("!=").Nil()).Block(body...).Else().Block(jen.Id(out).Op("=").Nil())}
}

// addr returns the address of an addressable expression: "&in.X", "&(*in)[i]", or "*in" for
// "**in".
func addr(expr string) string {
	if strings.HasPrefix(expr, "*") {
		return expr[1:]
	}
	return "&" + expr
}
