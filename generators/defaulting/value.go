package defaulting

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	jsonPkg    = "encoding/json"
	reflectPkg = "reflect"
)

// basicTypes maps the name of every Go basic type a default may have to its reflect.Type.
var basicTypes = map[string]reflect.Type{
	"bool": reflect.TypeFor[bool](), "string": reflect.TypeFor[string](),
	"int": reflect.TypeFor[int](), "int8": reflect.TypeFor[int8](), "int16": reflect.TypeFor[int16](),
	"int32": reflect.TypeFor[int32](), "int64": reflect.TypeFor[int64](), "rune": reflect.TypeFor[rune](),
	"uint": reflect.TypeFor[uint](), "uint8": reflect.TypeFor[uint8](), "uint16": reflect.TypeFor[uint16](),
	"uint32": reflect.TypeFor[uint32](), "uint64": reflect.TypeFor[uint64](), "byte": reflect.TypeFor[byte](),
	"uintptr": reflect.TypeFor[uintptr](), "float32": reflect.TypeFor[float32](), "float64": reflect.TypeFor[float64](),
}

// basicOf returns the basic type underlying ref ("int32" for int32 and for `type Count int32`),
// or "" when ref is not basic.
func basicOf(ref *model.TypeRef) string {
	switch {
	case ref.Kind == model.Basic:
		return ref.Basic
	case ref.Kind == model.Named && ref.Named.Kind == model.Basic && ref.Named.Underlying != nil:
		return basicOf(ref.Named.Underlying)
	}
	return ""
}

// basicLiteral returns the Go literal of text, a JSON value, as a value of the basic type
// named basic. Errors: text is null, not valid JSON for the type, or out of its range.
func basicLiteral(basic, text string) (jen.Code, error) {
	typ, ok := basicTypes[basic]
	if !ok {
		return nil, fmt.Errorf("defaults on %s fields are not supported", basic)
	}
	if strings.TrimSpace(text) == "null" {
		return nil, errors.New("null is not a default")
	}
	v := reflect.New(typ)
	if err := json.Unmarshal([]byte(text), v.Interface()); err != nil {
		return nil, fmt.Errorf("cannot unmarshal it into %s: %w", basic, err)
	}
	v = v.Elem()
	switch v.Kind() {
	case reflect.String:
		return jen.Lit(v.String()), nil
	case reflect.Bool:
		return jen.Lit(v.Bool()), nil
	case reflect.Float32, reflect.Float64:
		return jen.Op(strconv.FormatFloat(v.Float(), 'g', -1, typ.Bits())), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return jen.Op(strconv.FormatInt(v.Int(), 10)), nil
	}
	return jen.Op(strconv.FormatUint(v.Uint(), 10)), nil
}

// checkDefault checks that text, a +default value, is JSON that unmarshals into a value of
// type ref: a literal of the basic type for basic fields (and pointers to them), else JSON of
// the field's shape (an object for structs and maps, an array for slices and arrays) unless
// the type unmarshals itself.
func checkDefault(ref *model.TypeRef, text string) error {
	if !json.Valid([]byte(text)) {
		return errors.New("it is not valid JSON")
	}
	for ref.Kind == model.Pointer {
		ref = ref.Elem
	}
	if basic := basicOf(ref); basic != "" {
		_, err := basicLiteral(basic, text)
		return err
	}
	want := shapeOf(ref)
	if want == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return fmt.Errorf("cannot unmarshal it: %w", err)
	}
	got := "value"
	switch v.(type) {
	case map[string]any:
		got = "object"
	case []any:
		got = "array"
	case string:
		got = "string"
	}
	if got != want {
		return fmt.Errorf("a %s value is a JSON %s", ref, want)
	}
	return nil
}

// shapeOf returns the JSON shape ("object", "array" or "string") a value of ref must have, or
// "" when any JSON may do: the type unmarshals itself (or comes from another package, which
// apigen cannot see into), or is an interface.
func shapeOf(ref *model.TypeRef) string {
	if ref.Kind == model.Named {
		t := ref.Named
		if !t.Local || t.HasMethod("UnmarshalJSON") {
			return ""
		}
		if t.Kind == model.Struct {
			return "object"
		}
		if t.Underlying == nil {
			return ""
		}
		ref = t.Underlying
	}
	switch ref.Kind {
	case model.Map:
		return "object"
	case model.Array:
		return "array"
	case model.Slice:
		if basicOf(ref.Elem) == "byte" || basicOf(ref.Elem) == "uint8" {
			return "string" // base64, as encoding/json writes []byte
		}
		return "array"
	}
	return ""
}

// defaultStmt returns the statement giving expr, a field of type ref, the default text (valid
// JSON, checked by checkDefault) when expr is unset. A default of a type from another package
// with a DeepCopyInto method (resource.Quantity, intstr.IntOrString, ...) is decoded once, into
// a package variable (g.decoded), and copied; any other is unmarshalled each time, as
// defaulter-gen does. (DeepCopyInto is deepcopy-gen's, func (in *T) DeepCopyInto(out *T), found
// in the dependency's zz_generated.deepcopy.go. Local types are left out: whether theirs is
// known depends on whether that file exists yet, and output must not.)
func (g *pkgGen) defaultStmt(ref *model.TypeRef, expr, text string) jen.Code {
	isPtr := ref.Kind == model.Pointer
	elem := ref
	if isPtr {
		elem = ref.Elem
	}
	if basic := basicOf(elem); basic != "" {
		lit, _ := basicLiteral(basic, text) // checked by validate
		if isPtr {
			return jen.If(jen.Id(expr).Op("==").Nil()).Block(
				jen.Var().Id("ptrVar1").Add(emit.TypeRef(elem)).Op("=").Add(lit),
				jen.Id(expr).Op("=").Op("&").Id("ptrVar1"),
			)
		}
		return jen.If(isZero(basic, expr)).Block(jen.Id(expr).Op("=").Add(lit))
	}
	unset := jen.Qual(reflectPkg, "ValueOf").Call(jen.Id(expr)).Dot("IsZero").Call()
	if elem.Kind == model.Named && !elem.Named.Local && elem.Named.HasMethod("DeepCopyInto") {
		v := jen.Id(g.decodedValue(elem, text))
		if isPtr {
			return jen.If(unset).Block(
				jen.Id(expr).Op("=").New(emit.TypeRef(elem)),
				v.Dot("DeepCopyInto").Call(jen.Id(expr)),
			)
		}
		return jen.If(unset).Block(v.Dot("DeepCopyInto").Call(jen.Op("&").Id(expr)))
	}
	return jen.If(unset).Block(unmarshalStmt(text, jen.Op("&").Id(expr)))
}

// unmarshalStmt returns the statement unmarshalling text, JSON, into dest (a pointer), which
// panics on error as defaulter-gen's does.
func unmarshalStmt(text string, dest jen.Code) jen.Code {
	raw := jen.Lit(text)
	if !strings.Contains(text, "`") {
		raw = jen.Op("`" + text + "`")
	}
	return jen.If(
		jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Index().Byte().Parens(raw), dest),
		jen.Err().Op("!=").Nil(),
	).Block(jen.Panic(jen.Err()))
}

// decodedDefault is a default decoded once into a package variable.
type decodedDefault struct {
	name string
	typ  *model.TypeRef
	text string
}

// decodedValue returns the name of the package variable holding text decoded as a value of
// typ, declaring it on first use (defaultValue0, defaultValue1, ... in the order of use).
func (g *pkgGen) decodedValue(typ *model.TypeRef, text string) string {
	for _, d := range g.decoded {
		if d.typ.Named.Name == typ.Named.Name && d.text == text {
			return d.name
		}
	}
	name := "defaultValue" + strconv.Itoa(len(g.decoded))
	g.decoded = append(g.decoded, decodedDefault{name: name, typ: typ, text: text})
	return name
}

// decl returns the declaration of d's variable, decoded when the package is initialized.
func (d decodedDefault) decl() jen.Code {
	return jen.Var().Id(d.name).Op("=").Func().Params().Add(emit.TypeRef(d.typ)).Block(
		jen.Var().Id("v").Add(emit.TypeRef(d.typ)),
		unmarshalStmt(d.text, jen.Op("&").Id("v")),
		jen.Return(jen.Id("v")),
	).Call()
}

// isZero returns the condition that expr, of basic type basic, holds its zero value.
func isZero(basic, expr string) jen.Code {
	switch basic {
	case "string":
		return jen.Id(expr).Op("==").Lit("")
	case "bool":
		return jen.Op("!").Id(expr)
	}
	return jen.Id(expr).Op("==").Lit(0)
}

// defaultMessage is the diagnostic for an invalid default on field f of t.
func defaultMessage(t *model.Type, f *model.Field, err error) string {
	return fmt.Sprintf("invalid default %s for field %s.%s of type %s: %v; write the default as JSON of the field's type, e.g. +default=\"text\", +default=3, +default=true or +default={\"key\":\"value\"}",
		*f.Markers.Default, t.Name.Name, f.Name, f.Type, err)
}
