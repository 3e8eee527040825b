package crdopenapi

import (
	"slices"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// convert rewrites s (and every node below it) in form f: for V3, an
// x-kubernetes-int-or-string node gets anyOf integer or string (upstream's Unfold); for V2,
// as upstream's ToStructuralOpenAPIV2, the junctors go, a nullable node loses its type,
// properties and items, a node preserving unknown fields its properties and items (and its
// type, for objects), an array without items its type, and nullable properties are no longer
// required; for Models, value validations and nullable go, as upstream's
// StripValueValidations and StripNullable.
func convert(s *spec.Schema, f Form) *spec.Schema {
	for name, p := range s.Properties {
		s.Properties[name] = *convert(&p, f)
	}
	if s.Items != nil && s.Items.Schema != nil {
		s.Items.Schema = convert(s.Items.Schema, f)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		s.AdditionalProperties.Schema = convert(s.AdditionalProperties.Schema, f)
	}
	switch f {
	case V3:
		if isTrue(s.Extensions, "x-kubernetes-int-or-string") && len(s.AnyOf) == 0 && len(s.AllOf) == 0 {
			s.AnyOf = []spec.Schema{{SchemaProps: spec.SchemaProps{Type: []string{"integer"}}}, {SchemaProps: spec.SchemaProps{Type: []string{"string"}}}}
		}
	case V2:
		toV2(s)
	case Models:
		stripValidations(s)
	}
	return s
}

// toV2 applies upstream's ToStructuralOpenAPIV2 to the node s.
func toV2(s *spec.Schema) {
	s.AllOf, s.OneOf, s.AnyOf, s.Not = nil, nil, nil, nil
	preserve := isTrue(s.Extensions, "x-kubernetes-preserve-unknown-fields")
	if s.Nullable {
		s.Type, s.Nullable, s.Items, s.Properties = nil, false, nil, nil
	}
	if preserve {
		s.Items, s.Properties = nil, nil
	}
	if s.Items == nil && s.Type.Contains("array") {
		s.Type = nil
	}
	if preserve && s.Type.Contains("object") {
		s.Type = nil
	}
	for name, p := range s.Properties {
		if p.Nullable {
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && s.AdditionalProperties.Schema.Nullable {
		s.Required = nil
	}
}

// stripValidations drops the value validations and nullable of the node s, keeping what
// decides how values merge (types, properties, items, and the x-kubernetes extensions).
func stripValidations(s *spec.Schema) {
	s.Format, s.Maximum, s.ExclusiveMaximum, s.Minimum, s.ExclusiveMinimum = "", nil, false, nil, false
	s.MaxLength, s.MinLength, s.Pattern, s.MaxItems, s.MinItems, s.UniqueItems = nil, nil, "", nil, nil, false
	s.MultipleOf, s.Enum, s.MaxProperties, s.MinProperties, s.Required = nil, nil, nil, nil, nil
	s.AllOf, s.OneOf, s.AnyOf, s.Not, s.Nullable = nil, nil, nil, nil, false
}
