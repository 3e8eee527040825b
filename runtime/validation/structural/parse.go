package structural

import (
	"fmt"
	"regexp"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// level is where a schema node sits, which decides the wording of a missing type, as upstream's.
type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// parser collects every violation while building the structural tree.
type parser struct {
	errs field.ErrorList
}

// supportedTypes are the OpenAPI types a CRD schema may use.
var supportedTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// unsupportedKeys are the JSON schema keywords CRD schemas may not use, as apiextensions' validation of
// JSONSchemaProps ("<keyword> is not supported").
var unsupportedKeys = []string{"$ref", "$schema", "id", "definitions", "dependencies", "patternProperties", "additionalItems"}

// node parses one schema node at path and checks the structural rules that concern it.
func (p *parser) node(m map[string]any, lvl level, path *field.Path) *Structural {
	s := &Structural{properties: map[string]*Structural{}}
	s.typ = p.str(m, "type", path)
	p.str(m, "format", path) // checked for its type only: kube-openapi checks values
	s.nullable = p.boolean(m, "nullable", path)
	s.dflt, s.hasDefault = m["default"]
	s.preserveUnknownFields = p.boolean(m, "x-kubernetes-preserve-unknown-fields", path)
	s.embeddedResource = p.boolean(m, "x-kubernetes-embedded-resource", path)
	s.intOrString = p.boolean(m, "x-kubernetes-int-or-string", path)
	s.listType = p.str(m, "x-kubernetes-list-type", path)
	s.listMapKeys = p.strings(m, "x-kubernetes-list-map-keys", path)

	for _, k := range unsupportedKeys {
		if _, ok := m[k]; ok {
			p.errs = append(p.errs, field.Forbidden(path.Child(k), k+" is not supported"))
		}
	}
	if v, ok := m["x-kubernetes-preserve-unknown-fields"]; ok && v == false {
		p.errs = append(p.errs, field.Invalid(path.Child("x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
	}
	if s.typ != "" && !contains(supportedTypes, s.typ) {
		p.errs = append(p.errs, field.NotSupported(path.Child("type"), s.typ, supportedTypes))
	}
	if pattern := p.str(m, "pattern", path); pattern != "" {
		if _, err := regexp.Compile(pattern); err != nil {
			p.errs = append(p.errs, field.Invalid(path.Child("pattern"), pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
	if mt := p.str(m, "x-kubernetes-map-type", path); mt != "" && mt != "granular" && mt != "atomic" {
		p.errs = append(p.errs, field.NotSupported(path.Child("x-kubernetes-map-type"), mt, []string{"granular", "atomic"}))
	}
	if m["uniqueItems"] == true {
		p.errs = append(p.errs, field.Forbidden(path.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}

	p.children(s, m, lvl, path)
	p.checkNode(s, m, lvl, path)
	p.checkJunctors(s, m, lvl, path)
	s.rules = p.compileRules(s, m, path)
	s.anyRules = len(s.rules) > 0 || (s.items != nil && s.items.anyRules) || (s.additional != nil && s.additional.anyRules)
	for _, sub := range s.properties {
		s.anyRules = s.anyRules || sub.anyRules
	}
	return s
}

// children parses properties, items and additionalProperties.
func (p *parser) children(s *Structural, m map[string]any, lvl level, path *field.Path) {
	props := p.object(m, "properties", path)
	for _, k := range sortedKeys(props) {
		sub, ok := props[k].(map[string]any)
		if !ok {
			p.errs = append(p.errs, field.Invalid(path.Child("properties").Key(k), props[k], "must be an object"))
			continue
		}
		s.properties[k] = p.node(sub, fieldLevel, path.Child("properties").Key(k))
	}
	switch items := m["items"].(type) {
	case nil:
	case map[string]any:
		s.items = p.node(items, itemLevel, path.Child("items"))
	case []any:
		p.errs = append(p.errs, field.Forbidden(path.Child("items"), "items must be a schema object and not an array"))
	default:
		p.errs = append(p.errs, field.Invalid(path.Child("items"), items, "must be an object"))
	}
	switch ap := m["additionalProperties"].(type) {
	case nil:
	case bool:
		if !ap {
			p.errs = append(p.errs, field.Forbidden(path.Child("additionalProperties"), "additionalProperties cannot be set to false"))
		} else {
			// Unlike upstream, which prunes everything inside such values, they are kept as they are.
			s.additional = &Structural{properties: map[string]*Structural{}, preserveUnknownFields: true}
		}
	case map[string]any:
		s.additional = p.node(ap, fieldLevel, path.Child("additionalProperties"))
	default:
		p.errs = append(p.errs, field.Invalid(path.Child("additionalProperties"), ap, "must be an object or a boolean"))
	}
	if s.additional != nil {
		if _, isSchema := m["additionalProperties"].(map[string]any); isSchema && len(props) > 0 {
			p.errs = append(p.errs, field.Forbidden(path.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		if lvl == rootLevel {
			p.errs = append(p.errs, field.Forbidden(path.Child("additionalProperties"), "must not be used at the root"))
		}
	}
}

// str returns m[key] as a string, reporting a value of another type.
func (p *parser) str(m map[string]any, key string, path *field.Path) string {
	v, ok := m[key]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		p.errs = append(p.errs, field.Invalid(path.Child(key), v, "must be a string"))
	}
	return s
}

// boolean returns m[key] as a bool, reporting a value of another type.
func (p *parser) boolean(m map[string]any, key string, path *field.Path) bool {
	v, ok := m[key]
	if !ok || v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		p.errs = append(p.errs, field.Invalid(path.Child(key), v, "must be a boolean"))
	}
	return b
}

// strings returns m[key] as a list of strings, reporting a value of another type.
func (p *parser) strings(m map[string]any, key string, path *field.Path) []string {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		p.errs = append(p.errs, field.Invalid(path.Child(key), v, "must be a list of strings"))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, x := range list {
		s, ok := x.(string)
		if !ok {
			p.errs = append(p.errs, field.Invalid(path.Child(key).Index(i), x, "must be a string"))
			continue
		}
		out = append(out, s)
	}
	return out
}

// object returns m[key] as an object, reporting a value of another type.
func (p *parser) object(m map[string]any, key string, path *field.Path) map[string]any {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		p.errs = append(p.errs, field.Invalid(path.Child(key), v, "must be an object"))
	}
	return o
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortStrings(s []string) { sort.Strings(s) }

// sortErrors sorts errs by field, then by message, as upstream's ValidateStructural sorts them.
func sortErrors(errs field.ErrorList) {
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
}
