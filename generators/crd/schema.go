package crd

import (
	"fmt"
	"slices"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/apigen-dev/apigen/generators/model"
)

// builder turns model types into CRD schemas in controller-gen's two steps: each named type
// gets its own schema, in which every other named type is a reference (typeSchema), and a
// kind's schema is that of its type with every reference resolved and every allOf merged
// (flatten.go). It records the diagnostics of what a CRD cannot express.
type builder struct {
	api *model.API
	// types caches typeSchema by TypeName.String(); an entry being built is empty.
	types map[string]*apiext.JSONSchemaProps
	// flat caches flatType by TypeName.String(); an entry being flattened is empty, which is
	// what a recursive reference resolves to, as in controller-gen.
	flat map[string]*apiext.JSONSchemaProps
	// refs maps the reference links typeSchema writes to the types they name.
	refs  map[string]*model.Type
	diags model.Diagnostics
}

func newBuilder(api *model.API) *builder {
	return &builder{api: api, types: map[string]*apiext.JSONSchemaProps{},
		flat: map[string]*apiext.JSONSchemaProps{}, refs: map[string]*model.Type{}}
}

func (b *builder) errorf(pos model.Position, format string, args ...any) {
	b.diags = append(b.diags, model.Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

func (b *builder) warnf(pos model.Position, format string, args ...any) {
	b.diags = append(b.diags, model.Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...), Warning: true})
}

// typeSchema returns the unflattened schema of named type t (controller-gen's
// NeedSchemaFor): references to other named types are left as $ref links. The result is
// shared: callers copy it before changing it.
func (b *builder) typeSchema(t *model.Type) *apiext.JSONSchemaProps {
	key := t.Name.String()
	if s, ok := b.types[key]; ok {
		return s
	}
	b.types[key] = &apiext.JSONSchemaProps{}
	s := b.infoToSchema(t)
	b.types[key] = s
	return s
}

// infoToSchema describes named type t: a known apimachinery type by its fixed schema; a type
// with a MarshalJSON method by its type markers when they give it a type; one with a
// MarshalText method as a string; any other by its declaration.
func (b *builder) infoToSchema(t *model.Type) *apiext.JSONSchemaProps {
	if s, ok := knownSchema(t.Name); ok {
		return s
	}
	switch {
	case hasMethod(t, "MarshalJSON"):
		s := &apiext.JSONSchemaProps{}
		b.applyType(t, s)
		if s.Type != "" {
			return s
		}
	case hasMethod(t, "MarshalText"):
		s := &apiext.JSONSchemaProps{Type: "string"}
		b.applyType(t, s)
		return s
	}
	return b.declSchema(t)
}

// hasMethod reports whether t or *t has the method name, promoted ones included.
func hasMethod(t *model.Type, name string) bool {
	return t.ValueMethods[name] || t.PointerMethods[name]
}

// declSchema describes t by its declaration: a reference to the type it is defined from, its
// struct, or its underlying type; with its doc as description and its type markers applied.
func (b *builder) declSchema(t *model.Type) *apiext.JSONSchemaProps {
	var s *apiext.JSONSchemaProps
	switch {
	case t.DefinedFrom != nil:
		s = b.namedRef(t.Name.Package, t.DefinedFrom)
	case t.Kind == model.Struct:
		s = b.structSchema(t)
	case t.Underlying != nil:
		s = b.refSchema(t.Underlying, t.Name.Package)
	default:
		s = &apiext.JSONSchemaProps{}
	}
	s.Description = description(t.Doc)
	b.applyType(t, s)
	return s
}

// refSchema describes a type expression written in package pkg, without doc or markers:
// basic types by type and format, named types by reference, []byte as a base64 string.
func (b *builder) refSchema(r *model.TypeRef, pkg string) *apiext.JSONSchemaProps {
	switch r.Kind {
	case model.Basic:
		typ, format := basicType(r.Basic)
		return &apiext.JSONSchemaProps{Type: typ, Format: format}
	case model.Named:
		return b.namedRef(pkg, r.Named)
	case model.Pointer:
		return b.refSchema(r.Elem, pkg)
	case model.Slice, model.Array:
		if r.Kind == model.Slice && r.Elem.Kind == model.Basic && (r.Elem.Basic == "byte" || r.Elem.Basic == "uint8") {
			return &apiext.JSONSchemaProps{Type: "string", Format: "byte"}
		}
		return &apiext.JSONSchemaProps{Type: "array", Items: &apiext.JSONSchemaPropsOrArray{Schema: b.refSchema(r.Elem, pkg)}}
	case model.Map:
		return &apiext.JSONSchemaProps{Type: "object",
			AdditionalProperties: &apiext.JSONSchemaPropsOrBool{Allows: true, Schema: b.refSchema(r.Elem, pkg)}}
	}
	// interface{}: any JSON value, which a CRD schema states as unknown fields preserved
	// (controller-gen rejects interface types).
	return &apiext.JSONSchemaProps{XPreserveUnknownFields: new(true)}
}

// basicType maps a Go basic type to its schema type and format, as controller-gen's
// builtinToType with crd:allowDangerousTypes (floats are numbers: apigen serves them).
func basicType(name string) (typ, format string) {
	switch name {
	case "bool":
		return "boolean", ""
	case "string":
		return "string", ""
	case "int32", "uint32":
		return "integer", "int32"
	case "int64", "uint64":
		return "integer", "int64"
	case "int", "int8", "int16", "uint", "uint8", "uint16", "byte", "rune", "uintptr":
		return "integer", ""
	case "float32", "float64":
		return "number", ""
	}
	return "", ""
}

// refLink is the $ref link of named type t in an unflattened schema; it never reaches output.
func refLink(t *model.Type) string { return "#/definitions/" + t.Name.String() }

// namedRef is the schema of a reference, from package pkg, to named type t: the link, with
// the type a field marker needs to see (array for a slice type, object for a map type, and
// for a basic type of pkg itself that type's own type and format), as controller-gen's
// localNamedToSchema and namedToSchema.
func (b *builder) namedRef(pkg string, t *model.Type) *apiext.JSONSchemaProps {
	link := refLink(t)
	b.refs[link] = t
	s := &apiext.JSONSchemaProps{Ref: &link}
	switch t.Kind {
	case model.Slice:
		s.Type = "array"
	case model.Map:
		s.Type = "object"
	case model.Basic:
		if t.Name.Package == pkg {
			full := b.typeSchema(t)
			s.Type, s.Format = full.Type, full.Format
		}
	}
	return s
}

// structSchema describes struct t: an object with a property per JSON field, inline and
// embedded fields as allOf entries (merged when flattened), and the required fields
// (required) sorted. Each optional field marked +k8s:immutable adds the rule that keeps it
// from being cleared once set, as controller-gen's structToSchema.
func (b *builder) structSchema(t *model.Type) *apiext.JSONSchemaProps {
	s := &apiext.JSONSchemaProps{Type: "object", Properties: map[string]apiext.JSONSchemaProps{}}
	var immutable []string
	for _, f := range t.Fields {
		if f.JSONName == "-" {
			continue
		}
		prop := b.refSchema(f.Type, t.Name.Package)
		prop.Description = description(f.Doc)
		b.applyField(t, f, prop)
		if f.Inline {
			s.AllOf = append(s.AllOf, *prop)
			continue
		}
		if f.Required { // controller-gen's rule, decided by the loader

			s.Required = append(s.Required, f.JSONName)
		}
		if f.Markers.Validation.Immutable {
			immutable = append(immutable, f.JSONName)
		}
		s.Properties[f.JSONName] = *prop
	}
	slices.Sort(s.Required)
	for _, name := range immutable {
		if !slices.Contains(s.Required, name) {
			s.XValidations = append(s.XValidations, apiext.ValidationRule{
				Rule:    fmt.Sprintf("!has(oldSelf.%s) || has(self.%s)", name, name),
				Message: fmt.Sprintf("field %s is immutable once set", name),
			})
		}
	}
	return s
}
