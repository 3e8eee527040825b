package openapi

import (
	"sort"

	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/generators/model"
)

// specialV2 are the OpenAPI v2 type and format of the apimachinery types that describe
// themselves through OpenAPISchemaType and OpenAPISchemaFormat (what those methods return).
// A user type with such methods is not listed: its schema is left untyped.
var specialV2 = map[model.TypeName][2]string{
	{Package: "k8s.io/apimachinery/pkg/api/resource", Name: "Quantity"}:   {"string", ""},
	{Package: "k8s.io/apimachinery/pkg/util/intstr", Name: "IntOrString"}: {"string", "int-or-string"},
	{Package: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "Time"}:       {"string", "date-time"},
	{Package: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "MicroTime"}:  {"string", "date-time"},
	{Package: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "Duration"}:   {"string", ""},
}

// DefinitionName is the name a type's definition has in an OpenAPI v2 document and in
// Definitions: its Go name made REST-friendly, as kube-openapi's util.ToRESTFriendlyName
// ("com.github.apigen-dev.apigen.example-api.apis.db.v1.Database",
// "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").
func DefinitionName(t *model.Type) string { return util.ToRESTFriendlyName(t.Name.String()) }

// Definitions returns the OpenAPI v2 definitions of roots and of every struct type they reach,
// keyed by DefinitionName and referring to each other as "#/definitions/<name>": the schemas
// the generated GetOpenAPIDefinitions describes, in the shape of an OpenAPI v2 document's
// definitions (types describing themselves by method are a plain v2 type and format). It
// serves the structured-merge schema of the generated apply configurations and, in tests,
// the OpenAPI input of code-generator's applyconfiguration-gen. Errors: a model.Diagnostics
// for a field that has no OpenAPI representation.
func Definitions(roots []*model.Type) (map[string]spec.Schema, error) {
	b := &builder{deps: map[string]*model.Type{}}
	out := map[string]spec.Schema{}
	queue := append([]*model.Type(nil), roots...)
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		name := DefinitionName(t)
		if _, done := out[name]; done {
			continue
		}
		if tf, ok := specialV2[t.Name]; ok {
			out[name] = spec.Schema{SchemaProps: spec.SchemaProps{Description: description(t.Doc), Type: []string{tf[0]}, Format: tf[1]}}
			continue
		}
		if special(t) != nil {
			out[name] = spec.Schema{SchemaProps: spec.SchemaProps{Description: description(t.Doc)}}
			continue
		}
		out[name] = specSchema(b.structSchema(t))
		queue = append(queue, b.sortedDeps()...)
	}
	if err := b.diags.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// specSchema converts a built schema to a spec.Schema, as the generated literal would be.
func specSchema(s *schema) spec.Schema {
	out := spec.Schema{}
	out.Description = s.description
	if s.hasDefault {
		out.Default = s.def
	}
	if s.typ != "" {
		out.Type = spec.StringOrArray{s.typ}
	}
	if s.validation.Format != "" {
		out.Format = s.validation.Format
	} else if s.simple {
		out.Format = s.format
	}
	if s.ref != nil {
		out.Ref = spec.MustCreateRef("#/definitions/" + DefinitionName(s.ref))
	}
	out.Enum = s.enum
	specValidations(&out, s.validation)
	if s.items != nil {
		item := specSchema(s.items)
		out.Items = &spec.SchemaOrArray{Schema: &item}
	}
	if s.additional != nil {
		add := specSchema(s.additional)
		out.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: &add}
	}
	if len(s.props) > 0 {
		out.Properties = map[string]spec.Schema{}
		for _, p := range s.props {
			out.Properties[p.name] = specSchema(p.schema)
		}
	}
	out.Required = s.required
	if len(s.listMapKeys) > 0 {
		out.AddExtension("x-kubernetes-list-map-keys", append([]string(nil), s.listMapKeys...))
	}
	if s.listType != "" {
		out.AddExtension("x-kubernetes-list-type", s.listType)
	}
	if s.mapType != "" {
		out.AddExtension("x-kubernetes-map-type", s.mapType)
	}
	if len(s.validation.Rules) > 0 {
		out.AddExtension("x-kubernetes-validations", validationRules(s.validation.Rules))
	}
	return out
}

// specValidations sets the value constraints of v on s.
func specValidations(s *spec.Schema, v model.Validation) {
	s.Minimum, s.ExclusiveMinimum = v.Minimum, v.Minimum != nil && v.ExclusiveMinimum
	s.Maximum, s.ExclusiveMaximum = v.Maximum, v.Maximum != nil && v.ExclusiveMaximum
	s.MinLength, s.MaxLength, s.Pattern = v.MinLength, v.MaxLength, v.Pattern
	s.MinItems, s.MaxItems, s.UniqueItems = v.MinItems, v.MaxItems, v.UniqueItems
	s.MultipleOf, s.MinProperties, s.MaxProperties = v.MultipleOf, v.MinProperties, v.MaxProperties
}

// SortedNames returns the keys of defs, sorted.
func SortedNames(defs map[string]spec.Schema) []string {
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
