package openapi

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/kube-openapi/pkg/common"

	"github.com/apigen-dev/apigen/generators/model"
)

// schema is the part of a spec.Schema the generator emits, built from the model before it is
// rendered.
type schema struct {
	description string
	// def is the default value decoded from JSON (map[string]interface{}, []interface{},
	// float64, string, bool or nil); hasDefault tells a null default from none.
	def        interface{}
	hasDefault bool
	typ        string
	format     string
	// simple marks a schema from a basic type; openapi-gen emits its format even when empty.
	simple bool
	// ref is the referenced named type, nil for an inline schema.
	ref         *model.Type
	enum        []interface{}
	validation  model.Validation
	items       *schema
	additional  *schema
	props       []property
	required    []string
	listType    string
	listMapKeys []string
	// nullable is +nullable: the schema allows null.
	nullable bool
	// mapType is x-kubernetes-map-type ("atomic" or "granular"), from +mapType or +structType.
	mapType string
}

// property is one named property of an object schema.
type property struct {
	name   string
	schema *schema
}

// specialType describes a type with OpenAPISchemaType/OpenAPISchemaFormat methods; oneOf is
// set when it also has OpenAPIV3OneOfTypes.
type specialType struct{ oneOf bool }

// specialTypes are the apimachinery types openapi-gen describes through their methods, listed
// by name so they are recognised even when the loader recorded no methods for them.
var specialTypes = map[model.TypeName]specialType{
	{Package: "k8s.io/apimachinery/pkg/api/resource", Name: "Quantity"}:   {oneOf: true},
	{Package: "k8s.io/apimachinery/pkg/util/intstr", Name: "IntOrString"}: {oneOf: true},
	{Package: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "Time"}:       {},
	{Package: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "MicroTime"}:  {},
	{Package: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "Duration"}:   {},
}

// special returns how t describes itself when it has OpenAPISchemaType methods, else nil.
func special(t *model.Type) *specialType {
	if s, ok := specialTypes[t.Name]; ok {
		return &s
	}
	if t.HasMethod("OpenAPISchemaType") && t.HasMethod("OpenAPISchemaFormat") {
		return &specialType{oneOf: t.HasMethod("OpenAPIV3OneOfTypes")}
	}
	return nil
}

// builder turns model types into schemas, recording the references of the definition being
// built and the diagnostics of everything it could not describe.
type builder struct {
	deps  map[string]*model.Type
	diags model.Diagnostics
}

func (b *builder) errorf(pos model.Position, format string, args ...interface{}) {
	b.diags = append(b.diags, model.Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// structSchema describes struct t: an object with its properties in declaration order.
func (b *builder) structSchema(t *model.Type) *schema {
	s := &schema{description: description(t.Doc), typ: "object", mapType: t.Markers.StructType}
	if t.Markers.MapType != "" {
		b.errorf(t.Pos, "+mapType on struct type %s: use +structType", t.Name.Name)
	}
	overlay(&s.validation, t.Markers.Validation)
	b.addFields(s, t)
	return s
}

// addFields adds t's fields to s, flattening inline and embedded untagged structs as
// encoding/json does.
func (b *builder) addFields(s *schema, t *model.Type) {
	for _, f := range t.Fields {
		if f.JSONName == "-" {
			continue
		}
		if f.Inline || (f.Embedded && f.JSONName == "") {
			if inner := structOf(f.Type); inner != nil {
				b.addFields(s, inner)
				continue
			}
		}
		name := f.JSONName
		if name == "" {
			name = f.Name
		}
		if f.Required {
			s.required = append(s.required, name)
		}
		s.props = append(s.props, property{name: name, schema: b.fieldSchema(t, f)})
	}
}

// structOf returns the struct a (pointer to a) named struct reference names, else nil.
func structOf(r *model.TypeRef) *model.Type {
	for r.Kind == model.Pointer {
		r = r.Elem
	}
	if r.Kind == model.Named && r.Named.Kind == model.Struct {
		return r.Named
	}
	return nil
}

// fieldSchema describes field f of owner: its type's schema with the field's description,
// default, validation and list extensions on top.
func (b *builder) fieldSchema(owner *model.Type, f *model.Field) *schema {
	s := b.refSchema(f.Type, f.Pos)
	s.description = description(f.Doc)
	overlay(&s.validation, f.Markers.Validation)
	if len(f.Markers.Validation.Enum) > 0 {
		s.enum = decodeEnum(f.Markers.Validation.Enum)
	}
	switch {
	case f.Markers.Default != nil:
		var v interface{}
		if err := json.Unmarshal([]byte(*f.Markers.Default), &v); err != nil {
			b.errorf(f.Pos, "cannot use the default of %s.%s: %q is not JSON: %v", owner.Name.Name, f.Name, *f.Markers.Default, err)
		}
		s.def, s.hasDefault = v, true
	case !f.Required:
		// A required key has no default: the server refuses a request without it (Required
		// value) rather than giving it its zero value.
		s.def, s.hasDefault = enforcedDefault(f.Type, f.OmitEmpty)
	}
	s.listType, s.listMapKeys = f.Markers.ListType, f.Markers.ListMapKey
	b.fieldMapType(s, owner, f)
	if items := f.Markers.Validation.Items; items != nil && s.items != nil {
		// +kubebuilder:validation:items:<Marker> constrains the items' schema, as
		// controller-gen writes it.
		overlay(&s.items.validation, *items)
	}
	s.nullable = f.Markers.Validation.Nullable
	return s
}

// fieldMapType sets x-kubernetes-map-type from the field's +mapType, which needs a map, or
// +structType, which needs a struct, as kube-openapi's openapi-gen.
func (b *builder) fieldMapType(s *schema, owner *model.Type, f *model.Field) {
	r := f.Type
	for r.Kind == model.Pointer || (r.Kind == model.Named && r.Named.Kind != model.Struct && r.Named.Underlying != nil) {
		if r.Kind == model.Pointer {
			r = r.Elem
		} else {
			r = r.Named.Underlying
		}
	}
	if m := f.Markers.MapType; m != "" {
		if r.Kind != model.Map {
			b.errorf(f.Pos, "+mapType on %s.%s needs a map, not %s", owner.Name.Name, f.Name, f.Type)
		}
		s.mapType = m
	}
	if m := f.Markers.StructType; m != "" {
		if r.Kind != model.Named || r.Named.Kind != model.Struct {
			b.errorf(f.Pos, "+structType on %s.%s needs a struct, not %s", owner.Name.Name, f.Name, f.Type)
		}
		s.mapType = m
	}
}

// refSchema describes a type reference: basic types by type and format, named structs by
// reference, named basic types inline with their own validation, pointers transparently.
func (b *builder) refSchema(r *model.TypeRef, pos model.Position) *schema {
	switch r.Kind {
	case model.Pointer:
		return b.refSchema(r.Elem, pos)
	case model.Basic:
		typ, format := common.OpenAPITypeFormat(r.Basic)
		if typ == "" {
			b.errorf(pos, "cannot describe type %s in OpenAPI: use a string, bool, integer or float type", r.Basic)
		}
		return &schema{typ: typ, format: format, simple: true}
	case model.Slice, model.Array:
		if r.Elem.Kind == model.Basic && (r.Elem.Basic == "byte" || r.Elem.Basic == "uint8") {
			return &schema{typ: "string", format: "byte", simple: true}
		}
		return &schema{typ: "array", items: b.elemSchema(r.Elem, pos)}
	case model.Map:
		if !isString(r.Key) {
			b.errorf(pos, "cannot describe map[%s] in OpenAPI: only string map keys are supported", r.Key)
		}
		return &schema{typ: "object", additional: b.elemSchema(r.Elem, pos)}
	case model.Named:
		return b.namedSchema(r.Named, pos)
	}
	return &schema{}
}

// elemSchema describes a slice or map element, with the default {} openapi-gen enforces on
// struct elements.
func (b *builder) elemSchema(r *model.TypeRef, pos model.Position) *schema {
	s := b.refSchema(r, pos)
	if d, ok := enforcedDefault(r, true); ok {
		s.def, s.hasDefault = d, true
	}
	return s
}

// namedSchema references a struct (or special type), or inlines a named non-struct type.
func (b *builder) namedSchema(t *model.Type, pos model.Position) *schema {
	if t.Kind == model.Struct {
		b.deps[t.Name.String()] = t
		return &schema{ref: t}
	}
	if t.Underlying == nil {
		return &schema{}
	}
	s := b.refSchema(t.Underlying, pos)
	overlay(&s.validation, t.Markers.Validation)
	if t.Markers.MapType != "" {
		s.mapType = t.Markers.MapType
	}
	if len(t.Markers.Validation.Enum) > 0 {
		s.enum = decodeEnum(t.Markers.Validation.Enum)
	} else if len(t.EnumValues) > 0 {
		s.enum = decodeEnum(t.EnumValues) // +enum: the type's constants, as openapi-gen lists them
	}
	return s
}

func isString(r *model.TypeRef) bool {
	if r.Kind == model.Named && r.Named.Underlying != nil {
		return isString(r.Named.Underlying)
	}
	return r.Kind == model.Basic && r.Basic == "string"
}

// enforcedDefault is the default openapi-gen sets on optional fields, list items and map values
// without +default, the value the server's Go decoding gives a key left out or null: {} for a
// non-pointer struct without custom JSON decoding, the zero value for a basic field without
// omitempty, nothing otherwise (as kube-openapi's mustEnforceDefault). Unlike openapi-gen, a
// struct with required fields gets no default {}: read as a CRD's, that default would make its
// required keys missing (Required value), where the server lets the struct be left out without
// reporting them (the generated validation checks the keys of a struct the request has), and
// the CRD API refuses a default that does not validate.
func enforcedDefault(r *model.TypeRef, omitEmpty bool) (interface{}, bool) {
	switch r.Kind {
	case model.Named:
		t := r.Named
		if t.Kind == model.Struct {
			if special(t) != nil || t.HasMethod("UnmarshalJSON") || hasRequired(t) {
				return nil, false
			}
			return map[string]interface{}{}, true
		}
		if t.Underlying != nil {
			return enforcedDefault(t.Underlying, omitEmpty)
		}
	case model.Basic:
		if !omitEmpty {
			return common.OpenAPIZeroValue(r.Basic)
		}
	}
	return nil, false
}

// hasRequired reports whether struct t has a required field, its inline and embedded untagged
// structs' included (the properties addFields flattens into its schema).
func hasRequired(t *model.Type) bool {
	for _, f := range t.Fields {
		if f.JSONName == "-" {
			continue
		}
		if f.Inline || (f.Embedded && f.JSONName == "") {
			if inner := structOf(f.Type); inner != nil {
				if hasRequired(inner) {
					return true
				}
				continue
			}
		}
		if f.Required {
			return true
		}
	}
	return false
}

// decodeEnum decodes enum values written as JSON (`"postgres"`, `3`); a bare word is taken as
// a string, as controller-tools does.
func decodeEnum(values []string) []interface{} {
	out := make([]interface{}, 0, len(values))
	for _, v := range values {
		var x interface{}
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			x = v
		}
		out = append(out, x)
	}
	return out
}

// overlay sets on dst every constraint set in src; CEL rules accumulate (a named type's rules
// first, then the field's), as controller-gen merges them into one x-kubernetes-validations.
func overlay(dst *model.Validation, src model.Validation) {
	if src.Minimum != nil {
		dst.Minimum, dst.ExclusiveMinimum = src.Minimum, src.ExclusiveMinimum
	}
	if src.Maximum != nil {
		dst.Maximum, dst.ExclusiveMaximum = src.Maximum, src.ExclusiveMaximum
	}
	for _, p := range []struct{ d, s **int64 }{
		{&dst.MinLength, &src.MinLength}, {&dst.MaxLength, &src.MaxLength},
		{&dst.MinItems, &src.MinItems}, {&dst.MaxItems, &src.MaxItems},
	} {
		if *p.s != nil {
			*p.d = *p.s
		}
	}
	for _, p := range []struct{ d, s **int64 }{
		{&dst.MinProperties, &src.MinProperties}, {&dst.MaxProperties, &src.MaxProperties},
	} {
		if *p.s != nil {
			*p.d = *p.s
		}
	}
	if src.MultipleOf != nil {
		dst.MultipleOf = src.MultipleOf
	}
	dst.UniqueItems = dst.UniqueItems || src.UniqueItems
	dst.Rules = append(dst.Rules, src.Rules...)
	if src.Pattern != "" {
		dst.Pattern = src.Pattern
	}
	if src.Format != "" {
		dst.Format = src.Format
	}
}

// description renders a doc comment as openapi-gen does: lines joined by spaces, paragraphs
// kept, indented lines on their own lines, everything after a "---" line and one-line TODOs
// dropped.
func description(doc string) string {
	var buf strings.Builder
	dropLast := func() {
		s := buf.String()
		if len(s) > 0 {
			buf.Reset()
			buf.WriteString(s[:len(s)-1])
		}
	}
	for _, line := range strings.Split(doc, "\n") {
		if line == "---" {
			break
		}
		line = strings.TrimRight(line, " ")
		leading := strings.TrimLeft(line, " ")
		switch {
		case line == "":
			dropLast()
			buf.WriteString("\n\n")
		case strings.HasPrefix(leading, "TODO"), strings.HasPrefix(leading, "+"):
		case strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t"):
			dropLast()
			buf.WriteString("\n" + line + "\n")
		default:
			buf.WriteString(line + " ")
		}
	}
	return strings.TrimSpace(buf.String())
}

// sortedDeps returns the types referenced since the last call, sorted by Go name, and resets
// them.
func (b *builder) sortedDeps() []*model.Type {
	names := make([]string, 0, len(b.deps))
	for n := range b.deps {
		names = append(names, n)
	}
	sort.Strings(names)
	deps := make([]*model.Type, len(names))
	for i, n := range names {
		deps[i] = b.deps[n]
	}
	b.deps = map[string]*model.Type{}
	return deps
}
