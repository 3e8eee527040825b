package structural

import (
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// listTypes are the values of x-kubernetes-list-type.
var listTypes = []string{"atomic", "map", "set"}

// checkNode checks the structural invariants of one parsed node, as upstream's validateStructuralInvariants, and
// the list-type rules of apiextensions' CRD validation.
func (p *parser) checkNode(s *Structural, m map[string]any, lvl level, path *field.Path) {
	add := func(err *field.Error) { p.errs = append(p.errs, err) }
	if s.typ == "array" && s.items == nil {
		if _, ok := m["items"]; !ok {
			add(field.Required(path.Child("items"), "must be specified"))
		}
	}
	if s.intOrString && s.preserveUnknownFields {
		add(field.Invalid(path.Child("x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.intOrString && s.embeddedResource {
		add(field.Invalid(path.Child("x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	switch {
	case s.embeddedResource && s.typ == "":
		add(field.Required(path.Child("type"), "must be object if x-kubernetes-embedded-resource is true"))
	case s.embeddedResource && s.typ != "object":
		add(field.Invalid(path.Child("type"), s.typ, "must be object if x-kubernetes-embedded-resource is true"))
	case s.typ == "" && !s.intOrString && !s.preserveUnknownFields:
		detail := map[level]string{
			rootLevel:  "must not be empty at the root",
			itemLevel:  "must not be empty for specified array items",
			fieldLevel: "must not be empty for specified object fields",
		}[lvl]
		add(field.Required(path.Child("type"), detail))
	}
	if s.embeddedResource && s.additional != nil {
		add(field.Forbidden(path.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && s.nullable {
		add(field.Forbidden(path.Child("nullable"), "nullable cannot be true at the root"))
	}
	if lvl == rootLevel && s.typ != "" && s.typ != "object" {
		add(field.Invalid(path.Child("type"), s.typ, "must be object at the root"))
	}
	checkMetadata := lvl == rootLevel || s.embeddedResource
	for _, k := range []string{"kind", "apiVersion"} {
		if sub, ok := s.properties[k]; ok && checkMetadata && sub.typ != "string" {
			add(field.Invalid(path.Child("properties").Key(k).Child("type"), sub.typ, "must be string"))
		}
	}
	if meta, ok := s.properties["metadata"]; ok {
		props, _ := m["properties"].(map[string]any)
		metaMap, _ := props["metadata"].(map[string]any)
		p.checkMetadata(meta, metaMap, checkMetadata, lvl, path.Child("properties").Key("metadata"))
	}
	if s.embeddedResource && !s.preserveUnknownFields && len(s.properties) == 0 {
		add(field.Required(path.Child("properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
	p.checkListType(s, path)
}

// checkMetadata checks a metadata property: an object, and at the root restricted to name and generateName, as
// upstream's validateStructuralMetadataInvariants.
func (p *parser) checkMetadata(meta *Structural, m map[string]any, checkMetadata bool, lvl level, path *field.Path) {
	if checkMetadata && meta.typ != "object" {
		p.errs = append(p.errs, field.Invalid(path.Child("type"), meta.typ, "must be object"))
	}
	if lvl != rootLevel {
		return
	}
	for k := range m {
		ok := k == "type"
		if k == "properties" {
			ok = true
			for name := range meta.properties {
				if name != "name" && name != "generateName" {
					ok = false
				}
			}
		}
		if !ok {
			p.errs = append(p.errs, field.Forbidden(path, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
			return
		}
	}
}

// checkListType checks x-kubernetes-list-type and x-kubernetes-list-map-keys.
func (p *parser) checkListType(s *Structural, path *field.Path) {
	add := func(err *field.Error) { p.errs = append(p.errs, err) }
	lt := path.Child("x-kubernetes-list-type")
	switch {
	case s.listType == "":
	case !contains(listTypes, s.listType):
		add(field.NotSupported(lt, s.listType, listTypes))
	case s.typ != "array":
		add(field.Invalid(lt, s.listType, "must only be used if type is array"))
	}
	keysPath := path.Child("x-kubernetes-list-map-keys")
	if s.listType != "map" {
		if len(s.listMapKeys) > 0 {
			add(field.Forbidden(keysPath, `must only be used if x-kubernetes-list-type is "map"`))
		}
		return
	}
	if len(s.listMapKeys) == 0 {
		add(field.Required(keysPath, `must not be empty if x-kubernetes-list-type is "map"`))
	}
	if s.items == nil {
		return
	}
	if s.items.typ != "object" {
		add(field.Invalid(path.Child("items").Child("type"), s.items.typ, `must be object if parent array's x-kubernetes-list-type is "map"`))
		return
	}
	for i, k := range s.listMapKeys {
		if _, ok := s.items.properties[k]; !ok {
			add(field.Invalid(keysPath.Index(i), k, "entries must all be names of item properties"))
		}
	}
}

// junctors are the logic junctors whose nested schemas carry value validations only.
var junctors = []string{"allOf", "anyOf", "oneOf"}

// intOrStringAnyOf is the anyOf upstream allows under x-kubernetes-int-or-string.
var intOrStringAnyOf = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}

// checkJunctors checks allOf, anyOf, oneOf and not of a node: their schemas may not specify types, defaults and
// the other generic fields, as upstream's validateValueValidation, except the int-or-string patterns.
func (p *parser) checkJunctors(s *Structural, m map[string]any, lvl level, path *field.Path) {
	skipAnyOf := reflect.DeepEqual(m["anyOf"], intOrStringAnyOf)
	for _, j := range junctors {
		list, ok := m[j].([]any)
		if _, present := m[j]; present && !ok {
			p.errs = append(p.errs, field.Invalid(path.Child(j), m[j], "must be a list of schemas"))
			continue
		}
		for i, x := range list {
			if j == "anyOf" && skipAnyOf {
				continue
			}
			nested, _ := x.(map[string]any)
			if j == "allOf" && i == 0 && reflect.DeepEqual(nested["anyOf"], intOrStringAnyOf) {
				nested = without(nested, "anyOf")
			}
			p.nested(nested, path.Child(j).Index(i))
		}
	}
	if not, ok := m["not"].(map[string]any); ok {
		p.nested(not, path.Child("not"))
	}
}

// forbiddenInNested are the keys a nested value validation may not have, with upstream's detail.
var forbiddenInNested = []struct{ key, detail string }{
	{"type", "must be empty to be structural"},
	{"additionalProperties", "must be undefined to be structural"},
	{"default", "must be undefined to be structural"},
	{"title", "must be empty to be structural"},
	{"description", "must be empty to be structural"},
	{"nullable", "must be false to be structural"},
	{"externalDocs", "must be undefined to be structural"},
	{"x-kubernetes-preserve-unknown-fields", "must be false to be structural"},
	{"x-kubernetes-embedded-resource", "must be false to be structural"},
	{"x-kubernetes-int-or-string", "must be false to be structural"},
	{"x-kubernetes-list-map-keys", "must be empty to be structural"},
	{"x-kubernetes-list-type", "must be undefined to be structural"},
	{"x-kubernetes-map-type", "must be undefined to be structural"},
	{"x-kubernetes-validations", "must be empty to be structural"},
}

// nested checks one schema under a junctor, as upstream's validateNestedValueValidation.
func (p *parser) nested(m map[string]any, path *field.Path) {
	if m == nil {
		return
	}
	for _, f := range forbiddenInNested {
		if v, ok := m[f.key]; ok && v != nil && v != false && v != "" {
			p.errs = append(p.errs, field.Forbidden(path.Child(f.key), f.detail))
		}
	}
	props, _ := m["properties"].(map[string]any)
	if _, ok := props["metadata"]; ok {
		p.errs = append(p.errs, field.Forbidden(path.Child("properties").Key("metadata"), "must not be specified in a nested context"))
	}
	for _, k := range sortedKeys(props) {
		sub, _ := props[k].(map[string]any)
		p.nested(sub, path.Child("properties").Key(k))
	}
	if items, ok := m["items"].(map[string]any); ok {
		p.nested(items, path.Child("items"))
	}
	for _, j := range junctors {
		list, _ := m[j].([]any)
		for i, x := range list {
			sub, _ := x.(map[string]any)
			p.nested(sub, path.Child(j).Index(i))
		}
	}
	if not, ok := m["not"].(map[string]any); ok {
		p.nested(not, path.Child("not"))
	}
}

// without returns a shallow copy of m without key.
func without(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}
