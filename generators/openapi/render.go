package openapi

import (
	"math"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/model"
)

// definition emits `func <name>(ref common.ReferenceCallback) common.OpenAPIDefinition` for t.
func (b *builder) definition(name string, t *model.Type) jen.Code {
	b.deps = map[string]*model.Type{}
	var body jen.Code
	if sp := special(t); sp != nil {
		body = specialDefinition(t, sp)
	} else {
		s := b.structSchema(t)
		items := []jen.Code{jen.Id("Schema").Op(":").Qual(specPkg, "Schema").Custom(multi, schemaItems(s)...)}
		if deps := b.sortedDeps(); len(deps) > 0 {
			lits := make([]jen.Code, len(deps))
			for i, d := range deps {
				lits[i] = definitionName(d)
			}
			items = append(items, jen.Id("Dependencies").Op(":").Index().String().Custom(multi, lits...))
		}
		body = jen.Qual(commonPkg, "OpenAPIDefinition").Custom(multi, items...)
	}
	return jen.Func().Id(name).Params(jen.Id("ref").Qual(commonPkg, "ReferenceCallback")).
		Qual(commonPkg, "OpenAPIDefinition").Block(jen.Return(body))
}

// definitionName is the name t's definition is keyed by and referenced as: the result of its
// OpenAPIModelName method when it has one (apimachinery's types since kube-openapi named them
// "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), else its Go name, as openapi-gen emits
// and as kube-openapi's util.GetCanonicalTypeName looks it up.
func definitionName(t *model.Type) *jen.Statement {
	if t.HasMethod("OpenAPIModelName") {
		return jen.Qual(t.Name.Package, t.Name.Name).Values().Dot("OpenAPIModelName").Call()
	}
	return jen.Lit(t.Name.String())
}

// specialDefinition describes a type through its OpenAPISchemaType, OpenAPISchemaFormat and
// OpenAPIV3OneOfTypes methods, as openapi-gen does: the v3 oneOf schema embedded into the v2
// one when the type has OpenAPIV3OneOfTypes.
func specialDefinition(t *model.Type, sp *specialType) jen.Code {
	value := func() *jen.Statement { return jen.Qual(t.Name.Package, t.Name.Name).Values() }
	def := func(typeItem jen.Code) jen.Code {
		var props []jen.Code
		if d := description(t.Doc); d != "" {
			props = append(props, jen.Id("Description").Op(":").Lit(d))
		}
		props = append(props, typeItem, jen.Id("Format").Op(":").Add(value()).Dot("OpenAPISchemaFormat").Call())
		return jen.Qual(commonPkg, "OpenAPIDefinition").Custom(multi,
			jen.Id("Schema").Op(":").Qual(specPkg, "Schema").Custom(multi,
				jen.Id("SchemaProps").Op(":").Qual(specPkg, "SchemaProps").Custom(multi, props...)))
	}
	v2 := def(jen.Id("Type").Op(":").Add(value()).Dot("OpenAPISchemaType").Call())
	if !sp.oneOf {
		return v2
	}
	v3 := def(jen.Id("OneOf").Op(":").Qual(commonPkg, "GenerateOpenAPIV3OneOfSchema").Call(
		value().Dot("OpenAPIV3OneOfTypes").Call()))
	return jen.Qual(commonPkg, "EmbedOpenAPIDefinitionIntoV2Extension").Call(v3, v2)
}

// schemaItems renders the fields of a spec.Schema literal: VendorExtensible (list
// extensions) and SchemaProps.
func schemaItems(s *schema) []jen.Code {
	var items []jen.Code
	if ext := extensions(s); ext != nil {
		items = append(items, jen.Id("VendorExtensible").Op(":").Qual(specPkg, "VendorExtensible").Custom(multi,
			jen.Id("Extensions").Op(":").Qual(specPkg, "Extensions").Custom(multi, ext...)))
	}
	return append(items, jen.Id("SchemaProps").Op(":").Qual(specPkg, "SchemaProps").Custom(multi, schemaProps(s)...))
}

// extensions renders x-kubernetes-list-map-keys, x-kubernetes-list-type,
// x-kubernetes-map-type and x-kubernetes-validations, or nil.
func extensions(s *schema) []jen.Code {
	var ext []jen.Code
	if len(s.listMapKeys) > 0 {
		keys := make([]interface{}, len(s.listMapKeys))
		for i, k := range s.listMapKeys {
			keys[i] = k
		}
		ext = append(ext, jen.Lit("x-kubernetes-list-map-keys").Op(":").Add(literal(keys)))
	}
	if s.listType != "" {
		ext = append(ext, jen.Lit("x-kubernetes-list-type").Op(":").Lit(s.listType))
	}
	if s.mapType != "" {
		ext = append(ext, jen.Lit("x-kubernetes-map-type").Op(":").Lit(s.mapType))
	}
	if len(s.validation.Rules) > 0 {
		rules := validationRules(s.validation.Rules)
		lits := make([]jen.Code, len(rules))
		for i, r := range rules {
			lits[i] = literal(r)
		}
		ext = append(ext, jen.Lit("x-kubernetes-validations").Op(":").Index().Interface().Custom(multi, lits...))
	}
	return ext
}

// schemaProps renders the fields of a spec.SchemaProps literal in openapi-gen's order.
func schemaProps(s *schema) []jen.Code {
	var p []jen.Code
	add := func(name string, value jen.Code) { p = append(p, jen.Id(name).Op(":").Add(value)) }
	if s.description != "" {
		add("Description", jen.Lit(s.description))
	}
	if s.hasDefault {
		add("Default", literal(s.def))
	}
	p = append(p, validations(s.validation)...)
	if s.typ != "" {
		add("Type", jen.Index().String().Values(jen.Lit(s.typ)))
	}
	if format := s.format; s.validation.Format != "" || s.simple {
		if s.validation.Format != "" {
			format = s.validation.Format
		}
		add("Format", jen.Lit(format))
	}
	if s.nullable {
		add("Nullable", jen.True())
	}
	if s.ref != nil {
		add("Ref", jen.Id("ref").Call(definitionName(s.ref)))
	}
	if len(s.enum) > 0 {
		add("Enum", literal(s.enum))
	}
	if s.items != nil {
		add("Items", jen.Op("&").Qual(specPkg, "SchemaOrArray").Custom(multi,
			jen.Id("Schema").Op(":").Op("&").Qual(specPkg, "Schema").Custom(multi, schemaItems(s.items)...)))
	}
	if s.additional != nil {
		add("AdditionalProperties", jen.Op("&").Qual(specPkg, "SchemaOrBool").Custom(multi,
			jen.Id("Allows").Op(":").True(),
			jen.Id("Schema").Op(":").Op("&").Qual(specPkg, "Schema").Custom(multi, schemaItems(s.additional)...)))
	}
	if len(s.props) > 0 {
		props := make([]jen.Code, len(s.props))
		for i, prop := range s.props {
			props[i] = jen.Lit(prop.name).Op(":").Custom(multi, schemaItems(prop.schema)...)
		}
		add("Properties", jen.Map(jen.String()).Qual(specPkg, "Schema").Custom(multi, props...))
	}
	if len(s.required) > 0 {
		req := make([]jen.Code, len(s.required))
		for i, r := range s.required {
			req[i] = jen.Lit(r)
		}
		add("Required", jen.Index().String().Values(req...))
	}
	return p
}

// validations renders the value constraints of v as spec.SchemaProps fields.
func validations(v model.Validation) []jen.Code {
	var p []jen.Code
	add := func(name string, value jen.Code) { p = append(p, jen.Id(name).Op(":").Add(value)) }
	ptr := func(typ *jen.Statement, value jen.Code) jen.Code {
		return jen.Qual(ptrPkg, "To").Types(typ).Call(value)
	}
	if v.Minimum != nil {
		add("Minimum", ptr(jen.Float64(), jen.Lit(*v.Minimum)))
		if v.ExclusiveMinimum {
			add("ExclusiveMinimum", jen.True())
		}
	}
	if v.Maximum != nil {
		add("Maximum", ptr(jen.Float64(), jen.Lit(*v.Maximum)))
		if v.ExclusiveMaximum {
			add("ExclusiveMaximum", jen.True())
		}
	}
	for _, c := range []struct {
		name  string
		value *int64
	}{{"MaxLength", v.MaxLength}, {"MinLength", v.MinLength}} {
		if c.value != nil {
			add(c.name, ptr(jen.Int64(), jen.Lit(int(*c.value))))
		}
	}
	if v.Pattern != "" {
		add("Pattern", jen.Lit(v.Pattern))
	}
	for _, c := range []struct {
		name  string
		value *int64
	}{{"MaxItems", v.MaxItems}, {"MinItems", v.MinItems}} {
		if c.value != nil {
			add(c.name, ptr(jen.Int64(), jen.Lit(int(*c.value))))
		}
	}
	if v.UniqueItems {
		add("UniqueItems", jen.True())
	}
	if v.MultipleOf != nil {
		add("MultipleOf", ptr(jen.Float64(), jen.Lit(*v.MultipleOf)))
	}
	for _, c := range []struct {
		name  string
		value *int64
	}{{"MaxProperties", v.MaxProperties}, {"MinProperties", v.MinProperties}} {
		if c.value != nil {
			add(c.name, ptr(jen.Int64(), jen.Lit(int(*c.value))))
		}
	}
	return p
}

// validationRules renders CEL rules as the x-kubernetes-validations value, a list of
// apiextensions ValidationRule objects as controller-gen writes them into a CRD: rule and the
// fields that are set (message, messageExpression, reason unless it is the default
// FieldValueInvalid, fieldPath, optionalOldSelf when true).
func validationRules(rules []model.ValidationRule) []map[string]interface{} {
	out := make([]map[string]interface{}, 0, len(rules))
	for _, r := range rules {
		m := map[string]interface{}{"rule": r.Rule}
		for k, v := range map[string]string{"message": r.Message, "messageExpression": r.MessageExpression, "fieldPath": r.FieldPath} {
			if v != "" {
				m[k] = v
			}
		}
		if r.Reason != "" && r.Reason != "FieldValueInvalid" {
			m["reason"] = r.Reason
		}
		if r.OptionalOldSelf {
			m["optionalOldSelf"] = true
		}
		out = append(out, m)
	}
	return out
}

// literal renders a value decoded from JSON as a Go literal of type interface{}: objects as
// map[string]interface{} with sorted keys, arrays as []interface{}, whole numbers as untyped
// integer constants (as openapi-gen's %#v does), other numbers as float64.
func literal(v interface{}) jen.Code {
	switch x := v.(type) {
	case nil:
		return jen.Nil()
	case map[string]interface{}:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		items := make([]jen.Code, len(keys))
		for i, k := range keys {
			items[i] = jen.Lit(k).Op(":").Add(literal(x[k]))
		}
		return jen.Map(jen.String()).Interface().Values(items...)
	case []interface{}:
		items := make([]jen.Code, len(x))
		for i, e := range x {
			items[i] = literal(e)
		}
		return jen.Index().Interface().Values(items...)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return jen.Lit(int(x))
		}
		return jen.Lit(x)
	}
	return jen.Lit(v)
}
