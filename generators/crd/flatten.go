package crd

import (
	"reflect"
	"slices"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/apigen-dev/apigen/generators/model"
)

// kindSchema is the schema of a kind's type as a CRD version holds it: every reference
// resolved (flatType) and then every allOf merged into its schema (mergeAllOf), as
// controller-gen's NeedFlattenedSchemaFor, with the top-level metadata an object without
// description (FixTopLevelMetadata).
func (b *builder) kindSchema(t *model.Type) *apiext.JSONSchemaProps {
	var s *apiext.JSONSchemaProps
	if cached, ok := b.flat[t.Name.String()]; ok {
		s = cached.DeepCopy()
	} else {
		// Not guarded against recursion, as controller-gen's FlattenType: a kind reaching
		// its own type resolves it once more before the guard applies.
		s = b.typeSchema(t).DeepCopy()
		b.resolve(s)
		b.flat[t.Name.String()] = s.DeepCopy()
	}
	walk(s, mergeAllOf)
	if _, ok := s.Properties["metadata"]; ok {
		s.Properties["metadata"] = apiext.JSONSchemaProps{Type: "object"}
	}
	return s
}

// flatType returns a copy of t's schema with every reference resolved. A type met again
// while it is being resolved (a recursive type) resolves to an empty schema, as in
// controller-gen's Flattener.
func (b *builder) flatType(t *model.Type) *apiext.JSONSchemaProps {
	key := t.Name.String()
	if s, ok := b.flat[key]; ok {
		return s.DeepCopy()
	}
	b.flat[key] = &apiext.JSONSchemaProps{}
	s := b.typeSchema(t).DeepCopy()
	b.resolve(s)
	b.flat[key] = s
	return s.DeepCopy()
}

// resolve replaces every reference in s by the resolved schema of the type it names, wrapped
// with the referring schema's own constraints (preserveFields).
func (b *builder) resolve(s *apiext.JSONSchemaProps) {
	if s.Ref != nil && *s.Ref != "" {
		*s = preserveFields(*b.flatType(b.refs[*s.Ref]), *s)
		return
	}
	eachChild(s, b.resolve)
}

// preserveFields combines the resolved schema of a type with the schema that referred to it
// (a field's, holding the field's doc and markers): an allOf of both, described by the
// referrer's description (and title, external docs, example) when it has one, else the
// type's; mergeAllOf later merges the allOf.
func preserveFields(typ, ref apiext.JSONSchemaProps) apiext.JSONSchemaProps {
	desc, title, docs, example := ref.Description, ref.Title, ref.ExternalDocs, ref.Example
	ref.Description, ref.Title, ref.ExternalDocs, ref.Example, ref.Ref = "", "", nil, nil, nil
	out := apiext.JSONSchemaProps{AllOf: []apiext.JSONSchemaProps{typ, ref},
		Description: typ.Description, Title: typ.Title, ExternalDocs: typ.ExternalDocs, Example: typ.Example}
	if desc != "" {
		out.Description = desc
	}
	if title != "" {
		out.Title = title
	}
	if docs != nil {
		out.ExternalDocs = docs
	}
	if example != nil {
		out.Example = example
	}
	return out
}

// mergeAllOf merges the allOf entries of s into s (controller-gen's allOfVisitor); walk then
// goes on into the merged children.
func mergeAllOf(s *apiext.JSONSchemaProps) {
	entries := s.AllOf
	s.AllOf = nil
	for _, e := range entries {
		mergeInto(s, e)
	}
}

// mergeInto merges src, after its own allOf entries, into dst, field by field, as
// controller-gen's flattenAllOfInto: a field set in src only is copied; one set to the same
// comparable value in both (pointers compare by identity, so two set pointers differ) is
// kept; otherwise properties are merged by name, required lists joined (then sorted and
// deduplicated), additionalProperties schemas merged, a conflicting type kept as dst's,
// src's x-kubernetes-preserve-unknown-fields, -map-type, -list-type and -list-map-keys win,
// src's CEL rules go before dst's, an enum is copied only into a schema without one, equal
// min/maxProperties are kept, and any other conflict is moved into a new allOf pair (dst's
// value, src's value). Descriptions, titles, examples and external docs are not merged.
func mergeInto(dst *apiext.JSONSchemaProps, src apiext.JSONSchemaProps) {
	for _, e := range src.AllOf {
		mergeInto(dst, e)
	}
	if len(src.Enum) > 0 && len(dst.Enum) == 0 {
		dst.Enum = slices.Clone(src.Enum)
	}
	dv, sv := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src)
	var dstRest, srcRest apiext.JSONSchemaProps
	dr, sr := reflect.ValueOf(&dstRest).Elem(), reflect.ValueOf(&srcRest).Elem()
	hoisted := false
	for i := range sv.NumField() {
		name := sv.Type().Field(i).Name
		switch name {
		case "AllOf", "Title", "Description", "Example", "ExternalDocs", "Enum":
			continue
		}
		sf, df := sv.Field(i), dv.Field(i)
		if sf.IsZero() {
			continue
		}
		if df.IsZero() {
			df.Set(sf)
			continue
		}
		if sf.Type().Comparable() && sf.Interface() == df.Interface() {
			continue
		}
		if !mergeField(name, dst, src) {
			sr.Field(i).Set(sf)
			dr.Field(i).Set(df)
			df.SetZero()
			hoisted = true
		}
	}
	if hoisted {
		dst.AllOf = append(dst.AllOf, dstRest, srcRest)
	}
	if len(dst.Required) > 0 {
		slices.Sort(dst.Required)
		dst.Required = slices.Compact(dst.Required)
	}
}

// mergeField merges the conflicting field name of src into dst, both set, and reports
// whether it could; mergeInto hoists the fields it could not into an allOf pair.
func mergeField(name string, dst *apiext.JSONSchemaProps, src apiext.JSONSchemaProps) bool {
	switch name {
	case "Properties":
		for k, v := range src.Properties {
			p, ok := dst.Properties[k]
			if !ok {
				dst.Properties[k] = v
				continue
			}
			mergeInto(&p, v)
			dst.Properties[k] = p
		}
	case "Required":
		dst.Required = append(dst.Required, src.Required...)
	case "MinProperties":
		return *src.MinProperties == *dst.MinProperties
	case "MaxProperties":
		return *src.MaxProperties == *dst.MaxProperties
	case "Type":
		// conflicting types: dst's is kept (controller-gen records an error).
	case "AdditionalProperties":
		if src.AdditionalProperties.Schema == nil {
			return true
		}
		if dst.AdditionalProperties.Schema == nil {
			dst.AdditionalProperties.Schema = &apiext.JSONSchemaProps{}
		}
		mergeInto(dst.AdditionalProperties.Schema, *src.AdditionalProperties.Schema)
	case "XPreserveUnknownFields":
		dst.XPreserveUnknownFields = src.XPreserveUnknownFields
	case "XMapType":
		dst.XMapType = src.XMapType
	case "XListType":
		dst.XListType = src.XListType
	case "XListMapKeys":
		dst.XListMapKeys = src.XListMapKeys
	case "XValidations":
		dst.XValidations = append(slices.Clone(src.XValidations), dst.XValidations...)
	default:
		return false
	}
	return true
}

// walk calls fn on s and then, recursively, on every schema below s as fn left it.
func walk(s *apiext.JSONSchemaProps, fn func(*apiext.JSONSchemaProps)) {
	fn(s)
	eachChild(s, func(c *apiext.JSONSchemaProps) { walk(c, fn) })
}

// eachChild calls fn on every schema directly below s, storing map entries back.
func eachChild(s *apiext.JSONSchemaProps, fn func(*apiext.JSONSchemaProps)) {
	if s.Items != nil {
		if s.Items.Schema != nil {
			fn(s.Items.Schema)
		}
		for i := range s.Items.JSONSchemas {
			fn(&s.Items.JSONSchemas[i])
		}
	}
	for _, list := range [][]apiext.JSONSchemaProps{s.AllOf, s.OneOf, s.AnyOf} {
		for i := range list {
			fn(&list[i])
		}
	}
	if s.Not != nil {
		fn(s.Not)
	}
	for _, m := range []map[string]apiext.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for k, v := range m {
			fn(&v)
			m[k] = v
		}
	}
	for _, p := range []*apiext.JSONSchemaPropsOrBool{s.AdditionalProperties, s.AdditionalItems} {
		if p != nil && p.Schema != nil {
			fn(p.Schema)
		}
	}
	for k, d := range s.Dependencies {
		if d.Schema != nil {
			fn(d.Schema)
			s.Dependencies[k] = d
		}
	}
}
