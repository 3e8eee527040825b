package jsoncodec

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// fail is `r.Fail(); return`.
func fail() []jen.Code {
	return []jen.Code{jen.Id("r").Dot("Fail").Call(), jen.Return()}
}

// decodeStruct emits the body of the decoder of supported struct t: null is a no-op, an
// unknown or repeated member fails the Reader.
func (g *gen) decodeStruct(t *model.Type) []jen.Code {
	fields := g.a.fields[t]
	body := []jen.Code{jen.If(jen.Id("r").Dot("Null").Call().Op("||").Op("!").Id("r").Dot("Object").Call()).Block(jen.Return())}
	member := jen.Id("n").Op(":=").Lit(0).Op(";").Id("r").Dot("Member").Call(jen.Id("n")).Op(";").Id("n").Op("++")
	if len(fields) == 0 {
		return append(body, jen.For(member).Block(fail()...))
	}
	cases := make([]jen.Code, 0, len(fields)+1)
	for i, f := range fields {
		stmts := []jen.Code{
			jen.If(jen.Id("seen").Index(jen.Lit(i))).Block(fail()...),
			jen.Id("seen").Index(jen.Lit(i)).Op("=").True(),
		}
		stmts = append(stmts, g.decode("out."+f.path, f.field.Type, false, 0, nil)...)
		cases = append(cases, jen.Case(jen.Lit(f.field.JSONName)).Block(stmts...))
	}
	cases = append(cases, jen.Default().Block(fail()...))
	return append(body,
		jen.Var().Id("seen").Index(jen.Lit(len(fields))).Bool(),
		jen.For(member).Block(jen.Switch(jen.String().Call(jen.Id("r").Dot("Key").Call())).Block(cases...)),
	)
}

// decode emits statements reading into the addressable expression x of type ref, which holds
// its zero value. notNull says a null was already ruled out.
func (g *gen) decode(x string, ref *model.TypeRef, notNull bool, depth int, named []*model.Type) []jen.Code {
	switch ref.Kind {
	case model.Basic:
		return decodeBasic(x, ref.Basic, nil, notNull)
	case model.Named:
		return g.decodeNamed(x, ref.Named, notNull, depth, named)
	case model.Pointer:
		stmts := append([]jen.Code{jen.Id(bare(x)).Op("=").New(emit.TypeRef(ref.Elem))}, g.decode("(*"+x+")", ref.Elem, true, depth, named)...)
		return []jen.Code{jen.If(jen.Op("!").Id("r").Dot("Null").Call()).Block(stmts...)}
	case model.Slice:
		if byteElem(ref.Elem) {
			return value("r", x)
		}
		return g.decodeSlice(x, ref, ref, depth, named)
	case model.Map:
		if !stringKey(ref.Key) {
			return value("r", x)
		}
		return g.decodeMap(x, ref, ref, depth, named)
	}
	return value("r", x) // interfaces, arrays
}

// notNull returns the condition that the value is not null (and, with and, more).
func notNull(known bool, and jen.Code) jen.Code {
	switch {
	case known && and == nil:
		return jen.True()
	case known:
		return and
	case and == nil:
		return jen.Op("!").Id("r").Dot("Null").Call()
	}
	return jen.Op("!").Id("r").Dot("Null").Call().Op("&&").Add(and)
}

// decodeSlice reads an array into slice x of type typ (ref itself, or the named slice type):
// null leaves it nil, [] makes it empty and not nil, elements are decoded in place.
func (g *gen) decodeSlice(x string, ref, typ *model.TypeRef, depth int, named []*model.Type) []jen.Code {
	i := fmt.Sprintf("i%d", depth)
	loop := append([]jen.Code{jen.Id(bare(x)).Op("=").Append(jen.Id(bare(x)), jen.Op("*").New(emit.TypeRef(ref.Elem)))},
		g.decode(x+"["+i+"]", ref.Elem, false, depth+1, named)...)
	return []jen.Code{jen.If(notNull(false, jen.Id("r").Dot("Array").Call())).Block(
		jen.For(jen.Id(i).Op(":=").Lit(0).Op(";").Id("r").Dot("Elem").Call(jen.Id(i)).Op(";").Id(i).Op("++")).Block(loop...),
		jen.If(jen.Id(bare(x)).Op("==").Nil()).Block(jen.Id(bare(x)).Op("=").Add(emit.TypeRef(typ)).Values()),
	)}
}

// decodeMap reads an object into map x of type typ: null leaves it nil, {} makes it empty
// and not nil, a repeated key fails the Reader.
func (g *gen) decodeMap(x string, ref, typ *model.TypeRef, depth int, named []*model.Type) []jen.Code {
	m, n, k, v := fmt.Sprintf("m%d", depth), fmt.Sprintf("n%d", depth), fmt.Sprintf("key%d", depth), fmt.Sprintf("val%d", depth)
	key := jen.Id("r").Dot("KeyString").Call()
	if ref.Key.Kind != model.Basic {
		key = emit.TypeRef(ref.Key).(*jen.Statement).Call(key)
	}
	loop := []jen.Code{
		jen.Id(k).Op(":=").Add(key),
		jen.Var().Id(v).Add(emit.TypeRef(ref.Elem)),
	}
	loop = append(loop, g.decode(v, ref.Elem, false, depth+1, named)...)
	// Member n makes the map n+1 long unless its key came before: one hash per member.
	loop = append(loop, jen.Id(m).Index(jen.Id(k)).Op("=").Id(v),
		jen.If(jen.Len(jen.Id(m)).Op("==").Id(n)).Block(fail()...))
	return []jen.Code{jen.If(notNull(false, jen.Id("r").Dot("Object").Call())).Block(
		jen.Id(m).Op(":=").Make(emit.TypeRef(typ), jen.Id("r").Dot("Len").Call()),
		jen.For(jen.Id(n).Op(":=").Lit(0).Op(";").Id("r").Dot("Member").Call(jen.Id(n)).Op(";").Id(n).Op("++")).Block(loop...),
		jen.Id(bare(x)).Op("=").Id(m),
	)}
}

// decodeBasic reads x of basic type name; conv is its named type, or nil.
func decodeBasic(x, name string, conv *model.Type, known bool) []jen.Code {
	r := jen.Id("r")
	var read *jen.Statement
	switch basicKind(name) {
	case "bool":
		read = r.Dot("Bool").Call()
	case "string":
		read = r.Dot("Str").Call()
	case "int":
		read = r.Dot("Int").Call(bitSize(name))
	case "uint":
		read = r.Dot("Uint").Call(bitSize(name))
	case "float":
		read = r.Dot("Float").Call(bitSize(name))
	default:
		return value("r", x)
	}
	switch {
	case conv != nil:
		read = emit.Qual(conv).Call(read)
	case name != "bool" && name != "string" && name != "int64" && name != "uint64" && name != "float64":
		read = jen.Id(name).Call(read)
	}
	set := jen.Id(bare(x)).Op("=").Add(read)
	if known {
		return []jen.Code{set}
	}
	return []jen.Code{jen.If(notNull(false, nil)).Block(set)} // null leaves a basic value unchanged
}

// decodeNamed reads x of named type t: its UnmarshalJSON, its codec, or its underlying shape.
func (g *gen) decodeNamed(x string, t *model.Type, known bool, depth int, named []*model.Type) []jen.Code {
	switch {
	case t.PointerMethods["UnmarshalJSON"]:
		return []jen.Code{jen.Id("r").Dot("Unmarshaler").Call(jen.Id(addr(x)))}
	case jsonMethods(t):
		return value("r", x)
	case t.Kind == model.Struct:
		if _, dec, ok := g.codec(t); ok {
			return []jen.Code{dec.Call(jen.Id("r"), jen.Id(addr(x)))}
		}
		return value("r", x)
	case t.Underlying == nil:
		return value("r", x)
	}
	for _, n := range named {
		if n == t {
			return value("r", x)
		}
	}
	typ := &model.TypeRef{Kind: model.Named, Named: t}
	switch u := t.Underlying; u.Kind {
	case model.Basic:
		return decodeBasic(x, u.Basic, t, known)
	case model.Slice:
		if byteElem(u.Elem) {
			return value("r", x)
		}
		return g.decodeSlice(x, u, typ, depth, append(named, t))
	case model.Map:
		if !stringKey(u.Key) {
			return value("r", x)
		}
		return g.decodeMap(x, u, typ, depth, append(named, t))
	}
	return value("r", x)
}
