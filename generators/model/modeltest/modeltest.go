// Package modeltest builds model values from literals for the generators' fixture tests: type
// references, struct types and fields, with what the loader decides for them (a field's
// Required by controller-gen's rule).
package modeltest

import "github.com/apigen-dev/apigen/generators/model"

// Basic is a reference to the Go basic type name ("string", "int32").
func Basic(name string) *model.TypeRef { return &model.TypeRef{Kind: model.Basic, Basic: name} }

// Named is a reference to the named type t.
func Named(t *model.Type) *model.TypeRef { return &model.TypeRef{Kind: model.Named, Named: t} }

// Ptr is a pointer to r.
func Ptr(r *model.TypeRef) *model.TypeRef { return &model.TypeRef{Kind: model.Pointer, Elem: r} }

// Slice is a slice of r.
func Slice(r *model.TypeRef) *model.TypeRef { return &model.TypeRef{Kind: model.Slice, Elem: r} }

// Map is a map from k to v.
func Map(k, v *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.Map, Key: k, Elem: v}
}

// Field is a struct field with JSON name json; an optional one (+optional) has omitempty, and
// Required is set as the loader sets it (model.Field.Required, without a package default).
func Field(name, json string, typ *model.TypeRef, doc string, m model.Markers) *model.Field {
	f := &model.Field{Name: name, JSONName: json, OmitEmpty: m.Optional, Type: typ, Doc: doc, Markers: m}
	f.Required = m.Required || !m.Optional && f.DefaultRequired()
	return f
}

// Embedded is t embedded: inline when json is "", else under json with omitempty (as
// metav1.ObjectMeta is embedded as `json:"metadata,omitempty"`).
func Embedded(t *model.Type, json string) *model.Field {
	return &model.Field{Name: t.Name.Name, JSONName: json, Inline: json == "", Embedded: true, OmitEmpty: json != "", Type: Named(t)}
}

// Struct is the struct type pkg.name with fields.
func Struct(pkg, name, doc string, fields ...*model.Field) *model.Type {
	return &model.Type{Name: model.TypeName{Package: pkg, Name: name}, Kind: model.Struct, Doc: doc, Fields: fields}
}
