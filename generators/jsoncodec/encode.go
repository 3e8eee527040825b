package jsoncodec

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// jsoncodecPkg is the import path of the Writer, Reader and registry generated code uses.
const jsoncodecPkg = emit.RuntimePath + "/jsoncodec"

// addr returns the address of the addressable expression x ("&in.Spec", or "p" for "(*p)").
func addr(x string) string {
	if strings.HasPrefix(x, "(*") && strings.HasSuffix(x, ")") { // only a dereference ends so
		return x[2 : len(x)-1]
	}
	return "&" + x
}

// bare returns x for use as a whole operand or assignment target: a dereference without its
// parentheses ("*p" for "(*p)"), which only indexing needs.
func bare(x string) string {
	if strings.HasPrefix(x, "(*") && strings.HasSuffix(x, ")") {
		return x[1 : len(x)-1]
	}
	return x
}

// encodeStruct emits the body of the encoder of supported struct t: members in declaration
// order, keys known at generation time, a comma decided statically where it can be.
func (g *gen) encodeStruct(t *model.Type) []jen.Code {
	body := []jen.Code{jen.Id("w").Dot("Byte").Call(jen.LitRune('{'))}
	const (
		none    = iota // nothing written yet
		written        // a member was written
		dynamic        // unknown: the more variable knows
	)
	state, usesMore := none, false
	for _, f := range g.a.fields[t] {
		x := "in." + f.path
		cond, always := omitEmpty(f.field, x)
		if !always && cond == nil {
			continue // an omitempty zero-length array is never written
		}
		if zcond, zalways, _ := omitZero(f.field, x); !zalways {
			if cond != nil {
				zcond = jen.Add(cond).Op("&&").Add(zcond)
			}
			cond = zcond
		}
		var key jen.Code
		switch {
		case state == written:
			key = jen.Id("w").Dot("Raw").Call(jen.Lit("," + f.key))
		case state == none && cond == nil:
			key = jen.Id("w").Dot("Raw").Call(jen.Lit(f.key))
		default:
			key = jen.Id("w").Dot("Field").Call(jen.Op("&").Id("more"), jen.Lit(f.key))
			usesMore = true
		}
		// omitempty rules out nil pointers, slices and maps (and empty ones, which are not nil).
		stmts := append([]jen.Code{key}, g.encodeRef(x, f.field.Type, f.field.OmitEmpty, 0, nil)...)
		if cond == nil {
			body = append(body, stmts...)
			state = written
			continue
		}
		body = append(body, jen.If(cond).Block(stmts...))
		if state == none {
			state = dynamic
		}
	}
	if usesMore {
		body = append([]jen.Code{jen.Id("more").Op(":=").False()}, body...)
	}
	return append(body, jen.Id("w").Dot("Byte").Call(jen.LitRune('}')))
}

// omitEmpty returns the condition under which an omitempty field x is written, as
// encoding/json's isEmptyValue; cond is nil and always true for a field always written, and
// both are zero for one never written.
func omitEmpty(f *model.Field, x string) (cond jen.Code, always bool) {
	if !f.OmitEmpty {
		return nil, true
	}
	ref := f.Type
	if ref.Kind == model.Named {
		if ref.Named.Kind == model.Struct || ref.Named.Underlying == nil {
			return nil, true // a struct is never empty
		}
		ref = ref.Named.Underlying
	}
	switch ref.Kind {
	case model.Pointer, model.Interface:
		return jen.Id(x).Op("!=").Nil(), false
	case model.Slice, model.Map:
		return jen.Len(jen.Id(x)).Op("!=").Lit(0), false
	case model.Array:
		return nil, ref.Len != 0
	case model.Basic:
		switch k := basicKind(ref.Basic); k {
		case "bool":
			return jen.Id(x), false
		case "string":
			return jen.Id(x).Op("!=").Lit(""), false
		case "int", "uint", "float": // reflect.Value.IsZero: -0 is zero too
			return jen.Id(x).Op("!=").Lit(0), false
		}
	}
	return nil, true // complex and the like: isEmptyValue is false
}

// omitZero returns the condition under which an omitzero field x is written, as
// encoding/json's: not IsZero() when the type (or its pointer) has that method, else not the
// reflect zero value. cond is nil and always true for a field without the option; ok is false
// when the zero value is one the generator does not test (a struct or an array without
// IsZero).
func omitZero(f *model.Field, x string) (cond jen.Code, always, ok bool) {
	if !f.OmitZero {
		return nil, true, true
	}
	ref := f.Type
	isZero := jen.Op("!").Id(x).Dot("IsZero").Call()
	if ref.Kind == model.Pointer && ref.Elem.Kind == model.Named && ref.Elem.Named.PointerMethods["IsZero"] {
		return jen.Id(x).Op("!=").Nil().Op("&&").Add(isZero), false, true
	}
	if ref.Kind == model.Named {
		if t := ref.Named; t.PointerMethods["IsZero"] && t.Kind != model.Pointer {
			return isZero, false, true
		}
		ref = ref.Named.Underlying
		if ref == nil {
			return nil, true, false // a struct without IsZero
		}
	}
	switch ref.Kind {
	case model.Pointer, model.Interface, model.Slice, model.Map:
		return jen.Id(x).Op("!=").Nil(), false, true
	case model.Basic:
		switch basicKind(ref.Basic) {
		case "bool":
			return jen.Id(x), false, true
		case "string":
			return jen.Id(x).Op("!=").Lit(""), false, true
		case "int", "uint", "float": // reflect.Value.IsZero: -0 is zero too
			return jen.Id(x).Op("!=").Lit(0), false, true
		}
	}
	return nil, true, false
}

// basicKind classifies a basic type name: "bool", "string", "int", "uint", "float", or ""
// for the rest (complex, unsafe.Pointer, invalid).
func basicKind(name string) string {
	switch name {
	case "bool", "string":
		return name
	case "int", "int8", "int16", "int32", "int64":
		return "int"
	case "uint", "uint8", "byte", "uint16", "uint32", "uint64", "uintptr":
		return "uint"
	case "float32", "float64":
		return "float"
	}
	return ""
}

// bitSize is the size in bits of a basic integer or float type; int, uint and uintptr are
// strconv.IntSize.
func bitSize(name string) jen.Code {
	switch name {
	case "int", "uint", "uintptr":
		return jen.Qual("strconv", "IntSize")
	case "int8", "uint8", "byte":
		return jen.Lit(8)
	case "int16", "uint16":
		return jen.Lit(16)
	case "int32", "uint32", "float32":
		return jen.Lit(32)
	}
	return jen.Lit(64)
}

// value is `w.Value(&x)`: encoding/json through reflection, or another package's codec.
func value(recv, x string) []jen.Code {
	return []jen.Code{jen.Id(recv).Dot("Value").Call(jen.Id(addr(x)))}
}

// encode emits statements writing the addressable expression x of type ref. depth numbers
// the loop variables; named lists the named non-struct types being expanded (a type that
// reaches itself is written by reflection the second time).
func (g *gen) encode(x string, ref *model.TypeRef, depth int, named []*model.Type) []jen.Code {
	return g.encodeRef(x, ref, false, depth, named)
}

// orNull returns body, which writes the non-nil slice, map or pointer x, behind a test
// writing null for nil, unless nonNil says a condition ruled nil out.
func orNull(x string, nonNil bool, body ...jen.Code) []jen.Code {
	if nonNil {
		return body
	}
	return []jen.Code{jen.If(jen.Id(bare(x)).Op("==").Nil()).Block(jen.Id("w").Dot("Null").Call()).Else().Block(body...)}
}

// encodeRef is encode; nonNil says x, a slice, map or pointer, is known not to be nil.
func (g *gen) encodeRef(x string, ref *model.TypeRef, nonNil bool, depth int, named []*model.Type) []jen.Code {
	switch ref.Kind {
	case model.Basic:
		return g.encodeBasic(x, ref.Basic, nil)
	case model.Named:
		return g.encodeNamed(x, ref.Named, depth, named)
	case model.Pointer:
		return orNull(x, nonNil, g.encode("(*"+x+")", ref.Elem, depth, named)...)
	case model.Slice:
		if byteElem(ref.Elem) {
			return value("w", x)
		}
		i := fmt.Sprintf("i%d", depth)
		return orNull(x, nonNil,
			jen.Id("w").Dot("Byte").Call(jen.LitRune('[')),
			jen.For(jen.Id(i).Op(":=").Range().Id(bare(x))).Block(
				append([]jen.Code{jen.If(jen.Id(i).Op(">").Lit(0)).Block(jen.Id("w").Dot("Byte").Call(jen.LitRune(',')))},
					g.encode(x+"["+i+"]", ref.Elem, depth+1, named)...)...),
			jen.Id("w").Dot("Byte").Call(jen.LitRune(']')),
		)
	case model.Map:
		if !stringKey(ref.Key) {
			return value("w", x)
		}
		return g.encodeMap(x, ref, nonNil, depth, named)
	}
	return value("w", x) // interfaces, arrays
}

// encodeMap emits a map with string keys: null for nil, members in encoding/json's key order
// (sorted in the Writer's scratch space, jsoncodec.SortedKeysIn, given back after the loop).
func (g *gen) encodeMap(x string, ref *model.TypeRef, nonNil bool, depth int, named []*model.Type) []jen.Code {
	k, v, more := fmt.Sprintf("key%d", depth), fmt.Sprintf("val%d", depth), fmt.Sprintf("more%d", depth)
	keys := fmt.Sprintf("keys%d", depth)
	key := jen.Id(k)
	if ref.Key.Kind != model.Basic {
		key = jen.String().Call(jen.Id(k))
	}
	var elem []jen.Code
	if g.a.needsAddr(ref.Elem) {
		elem = []jen.Code{jen.Id("w").Dot("Value").Call(jen.Id(v))} // not addressable, as encoding/json's map values
	} else {
		elem = g.encode(v, ref.Elem, depth+1, named)
	}
	loop := append([]jen.Code{
		jen.Id("w").Dot("Key").Call(jen.Op("&").Id(more), key),
		jen.Id(v).Op(":=").Id(x).Index(jen.Id(k)),
	}, elem...)
	return orNull(x, nonNil,
		jen.Id("w").Dot("Byte").Call(jen.LitRune('{')),
		jen.Id(more).Op(":=").False(),
		jen.Id(keys).Op(":=").Qual(jsoncodecPkg, "SortedKeysIn").Call(jen.Id("w"), jen.Id(bare(x))),
		jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Id(keys)).Block(loop...),
		jen.Qual(jsoncodecPkg, "ReleaseKeys").Call(jen.Id("w"), jen.Id(keys)),
		jen.Id("w").Dot("Byte").Call(jen.LitRune('}')),
	)
}

// encodeBasic writes x of basic type name; conv is the named type's conversion or nil.
func (g *gen) encodeBasic(x, name string, conv *model.Type) []jen.Code {
	w := jen.Id("w")
	val := func(to *jen.Statement) jen.Code { return to.Call(jen.Id(bare(x))) }
	switch basicKind(name) {
	case "bool":
		if conv == nil {
			return []jen.Code{w.Dot("Bool").Call(jen.Id(bare(x)))}
		}
		return []jen.Code{w.Dot("Bool").Call(val(jen.Bool()))}
	case "string":
		if conv == nil {
			return []jen.Code{w.Dot("String").Call(jen.Id(bare(x)))}
		}
		return []jen.Code{w.Dot("String").Call(val(jen.String()))}
	case "int":
		if conv == nil && name == "int64" {
			return []jen.Code{w.Dot("Int").Call(jen.Id(bare(x)))}
		}
		return []jen.Code{w.Dot("Int").Call(val(jen.Int64()))}
	case "uint":
		if conv == nil && name == "uint64" {
			return []jen.Code{w.Dot("Uint").Call(jen.Id(bare(x)))}
		}
		return []jen.Code{w.Dot("Uint").Call(val(jen.Uint64()))}
	case "float":
		bits := 64
		if name == "float32" {
			bits = 32
		}
		if conv == nil && name == "float64" {
			return []jen.Code{w.Dot("Float").Call(jen.Id(bare(x)), jen.Lit(bits))}
		}
		return []jen.Code{w.Dot("Float").Call(val(jen.Float64()), jen.Lit(bits))}
	}
	return value("w", x)
}

// encodeNamed writes x of named type t: its MarshalJSON, its codec, or its underlying shape.
func (g *gen) encodeNamed(x string, t *model.Type, depth int, named []*model.Type) []jen.Code {
	switch {
	case t.PointerMethods["MarshalJSON"]: // x is addressable: encoding/json calls it on &x
		return []jen.Code{jen.Id("w").Dot("Marshaler").Call(jen.Id(addr(x)))}
	case jsonMethods(t):
		return value("w", x)
	case t.Kind == model.Struct:
		if enc, _, ok := g.codec(t); ok {
			return []jen.Code{enc.Call(jen.Id("w"), jen.Id(addr(x)))}
		}
		return value("w", x)
	case t.Underlying == nil:
		return value("w", x)
	}
	for _, n := range named {
		if n == t {
			return value("w", x)
		}
	}
	switch u := t.Underlying; u.Kind {
	case model.Basic:
		return g.encodeBasic(x, u.Basic, t)
	case model.Slice, model.Map:
		return g.encode(x, u, depth, append(named, t))
	}
	return value("w", x) // named pointers, arrays, interfaces
}
