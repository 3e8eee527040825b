package validation

import (
	"strings"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/runtime/validation/cel"
)

// integerBasics and floatBasics are the Go basic types JSON encodes as integers and numbers.
var (
	integerBasics = map[string]bool{"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
		"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true, "byte": true, "rune": true}
	floatBasics = map[string]bool{"float32": true, "float64": true}
)

// basicOf returns the basic type name ref stands for: the basic itself, or the underlying
// basic of a named non-struct type; "" otherwise.
func basicOf(ref *model.TypeRef) string {
	switch ref.Kind {
	case model.Basic:
		return ref.Basic
	case model.Named:
		if t := ref.Named; t.Kind == model.Basic && t.Underlying != nil {
			return basicOf(t.Underlying)
		}
	}
	return ""
}

func isInteger(ref *model.TypeRef) bool { return integerBasics[basicOf(ref)] }
func isNumber(ref *model.TypeRef) bool  { return isInteger(ref) || floatBasics[basicOf(ref)] }
func isString(ref *model.TypeRef) bool  { return basicOf(ref) == "string" }

// hasConstraints reports whether v asks for any check besides CEL rules.
func hasConstraints(v *model.Validation) bool {
	return v.Minimum != nil || v.Maximum != nil || v.MinLength != nil || v.MaxLength != nil ||
		v.MinItems != nil || v.MaxItems != nil || v.UniqueItems || v.Pattern != "" || v.Format != "" ||
		len(v.Enum) > 0 || v.MultipleOf != nil || v.MinProperties != nil || v.MaxProperties != nil
}

// fieldHasChecks reports whether the field's own markers ask for a check.
func fieldHasChecks(f *model.Field) bool {
	m := &f.Markers
	v := &m.Validation
	return f.Required || hasConstraints(v) || len(v.Rules) > 0 ||
		m.ListType == "set" || (m.ListType == "map" && len(m.ListMapKey) > 0) ||
		v.Immutable || v.Forbidden || len(v.Update) > 0 || v.MaxBytes != nil || len(v.NEQ) > 0 || v.Unique != "" ||
		hasScalarChecks(v.Items) || hasScalarChecks(v.Keys)
}

// needs reports whether values of the named type t need a Validate_ function: t is
// validatable, and has type-level checks or a field (at any depth) with checks. stack breaks
// cycles; only positive results are memoized, as a negative one may depend on a cycle cut.
func (g *pkgGen) needs(t *model.Type, stack map[*model.Type]bool) bool {
	if t == nil || stack[t] || !validatable(g.pkg, t) {
		return false
	}
	if g.memo[t] {
		return true
	}
	stack[t] = true
	defer delete(stack, t)
	has := len(t.Markers.Validation.Rules) > 0 || hasUnion(t)
	if t.Kind == model.Basic {
		has = has || hasConstraints(&t.Markers.Validation) || g.inherits(t, stack)
	}
	for _, f := range t.Fields {
		if has {
			break
		}
		if f.JSONName == "-" {
			continue
		}
		has = fieldHasChecks(f) || g.refNeeds(f.Type, stack)
	}
	if has {
		g.memo[t] = true
	}
	return has
}

// inherits reports whether the named scalar t is defined from another named type whose
// values need validating (HTTPHeaderName from HeaderName in `type HTTPHeaderName
// HeaderName`): its schema inherits that type's constraints, as controller-gen's does, so
// Validate_<t> calls that type's function.
func (g *pkgGen) inherits(t *model.Type, stack map[*model.Type]bool) bool {
	return t.Kind == model.Basic && t.DefinedFrom != nil && g.needs(t.DefinedFrom, stack)
}

// refNeeds reports whether a value of type ref needs validating because of the types it
// reaches (not the markers of the field holding it).
func (g *pkgGen) refNeeds(ref *model.TypeRef, stack map[*model.Type]bool) bool {
	switch ref.Kind {
	case model.Named:
		return g.needs(ref.Named, stack)
	case model.Pointer, model.Slice, model.Map:
		return g.refNeeds(ref.Elem, stack)
	}
	return false
}

// selfDescribed are the types of other packages whose schema is not built from their fields,
// as controller-gen's known types: the object metadata (metadata validation checks it; a CRD
// says only `type: object`), and the types that read and write their own JSON (Quantity,
// Time, IntOrString, RawExtension, ...; any type with a MarshalJSON method is one too).
var selfDescribed = map[model.TypeName]bool{
	{Package: metav1Path, Name: "ObjectMeta"}:                                                true,
	{Package: metav1Path, Name: "ListMeta"}:                                                  true,
	{Package: metav1Path, Name: "TypeMeta"}:                                                  true,
	{Package: metav1Path, Name: "Time"}:                                                      true,
	{Package: metav1Path, Name: "MicroTime"}:                                                 true,
	{Package: metav1Path, Name: "Duration"}:                                                  true,
	{Package: metav1Path, Name: "Fields"}:                                                    true,
	{Package: metav1Path, Name: "FieldsV1"}:                                                  true,
	{Package: "k8s.io/apimachinery/pkg/api/resource", Name: "Quantity"}:                      true,
	{Package: "k8s.io/apimachinery/pkg/runtime", Name: "RawExtension"}:                       true,
	{Package: "k8s.io/apimachinery/pkg/util/intstr", Name: "IntOrString"}:                    true,
	{Package: "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured", Name: "Unstructured"}:     true,
	{Package: "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", Name: "JSON"}:      true,
	{Package: "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1", Name: "JSON"}: true,
}

// metav1Path is apimachinery's meta/v1.
const metav1Path = "k8s.io/apimachinery/pkg/apis/meta/v1"

// validatable reports whether values of the named type t are validated by a Validate_
// function of pkg: t is one of pkg's own types, or a struct or named scalar of another
// package (metav1.Condition, a type of the user's other module) that is not selfDescribed,
// whose markers the API server enforces through a CRD's schema as it does those of local
// types (controller-gen reads them); its function is generated into pkg.
func validatable(pkg *model.Package, t *model.Type) bool {
	if t.Name.Package == pkg.Path {
		return true
	}
	if selfDescribed[t.Name] || t.HasMethod("MarshalJSON") || t.HasMethod("UnmarshalJSON") {
		return false
	}
	return t.Kind == model.Struct || t.Kind == model.Basic
}

// funcName is the name of t's Validate_ function in the package generated for: Validate_<Type>
// for the package's own types, Validate_<pkg>_<Type> for another package's (the import name
// apigen gives that package, else its last two path elements: Validate_metav1_Condition,
// Validate_corev1_Container).
func (g *pkgGen) funcName(t *model.Type) string {
	if t.Name.Package == g.pkg.Path {
		return "Validate_" + t.Name.Name
	}
	return "Validate_" + importName(t.Name.Package) + "_" + t.Name.Name
}

// importName is emit's import name of pkgPath, else its last two path elements joined, with
// every character that cannot be in an identifier dropped ("k8s.io/api/core/v1": corev1).
func importName(pkgPath string) string {
	if n, ok := emit.ImportNames[pkgPath]; ok {
		return n
	}
	parts := strings.Split(pkgPath, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.Join(parts, ""))
}

// hasFunc reports whether the type t gets a Validate_ function in this package.
func (g *pkgGen) hasFunc(t *model.Type) bool { return g.needs(t, map[*model.Type]bool{}) }

// celType is the CEL shape of a value of type ref, for a rule's self.
func celType(ref *model.TypeRef) cel.Type {
	switch ref.Kind {
	case model.Pointer:
		return celType(ref.Elem)
	case model.Slice, model.Array:
		return cel.List
	case model.Map:
		if basicOf(ref.Key) == "string" {
			return cel.Object
		}
		return cel.Dyn
	case model.Named:
		return namedCELType(ref.Named)
	case model.Basic:
		return basicCELType(ref.Basic)
	}
	return cel.Dyn
}

func namedCELType(t *model.Type) cel.Type {
	if t.HasMethod("MarshalJSON") || t.HasMethod("OpenAPISchemaType") {
		return cel.Dyn // Quantity, Time, IntOrString, ...: their JSON shape is their own
	}
	if t.Kind == model.Struct {
		return cel.Object
	}
	if t.Underlying != nil {
		return celType(t.Underlying)
	}
	return cel.Dyn
}

func basicCELType(b string) cel.Type {
	switch {
	case b == "string":
		return cel.String
	case b == "bool":
		return cel.Bool
	case integerBasics[b]:
		return cel.Int
	case floatBasics[b]:
		return cel.Double
	}
	return cel.Dyn
}

// hasRules reports whether a value of type t holds a CEL rule anywhere: on t, on a field, or
// on a type a field reaches, of this package or another (Gateway API's v1beta1 kinds hold
// v1's types, whose rules their validation runs). Such a kind's errors go through cel.Gate,
// as a CRD with x-kubernetes-validations is validated. seen breaks cycles.
func (g *pkgGen) hasRules(t *model.Type, seen map[*model.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	if len(t.Markers.Validation.Rules) > 0 {
		return true
	}
	for _, f := range t.Fields {
		if f.JSONName != "-" && (len(f.Markers.Validation.Rules) > 0 || g.refHasRules(f.Type, seen)) {
			return true
		}
	}
	return false
}

// refHasRules is hasRules of the types ref reaches.
func (g *pkgGen) refHasRules(ref *model.TypeRef, seen map[*model.Type]bool) bool {
	switch ref.Kind {
	case model.Named:
		return g.hasRules(ref.Named, seen)
	case model.Pointer, model.Slice, model.Map:
		return g.refHasRules(ref.Elem, seen)
	}
	return false
}
