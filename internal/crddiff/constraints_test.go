package crddiff

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// constraint is one thing a published schema states about the values at one place: kind is
// one of
//
//	type, format, enum, pattern, minLength, maxLength, minimum, maximum, multipleOf,
//	minItems, maxItems, uniqueItems, listSet, listMap, minProperties, maxProperties,
//	required, rule, nullable
//
// (listSet and listMap are x-kubernetes-list-type set and map with its keys; exclusive bounds
// are minimum and maximum with "exclusive" in detail), path is the schema path of the value
// (spec.tools[*].name: [*] for any list item or map value; the required key for required),
// detail says what the schema states there (the pattern, the bound, the rule).
type constraint struct {
	kind, path, detail string
	// transition is set for a rule that reads oldSelf: only an update can break it.
	transition bool
}

// String renders c as "kind at path (detail)".
func (c constraint) String() string {
	if c.detail == "" {
		return c.kind + " at " + c.path
	}
	return fmt.Sprintf("%s at %s (%s)", c.kind, c.path, c.detail)
}

// statedConstraints lists every constraint the structural schema root states below it (the
// root's own type is not one: a body that is not an object is not a request for the kind),
// in path order.
func statedConstraints(root *structuralschema.Structural) []constraint {
	var out []constraint
	var walk func(s *structuralschema.Structural, path string)
	walk = func(s *structuralschema.Structural, path string) {
		if path != "" {
			out = append(out, valueConstraints(s, path)...)
		}
		vv := valueValidation(s)
		for _, r := range vv.Required {
			out = append(out, constraint{kind: "required", path: joinPath(path, r)})
		}
		for _, name := range sortedKeys(s.Properties) {
			p := s.Properties[name]
			walk(&p, joinPath(path, name))
		}
		if s.Items != nil {
			walk(s.Items, path+"[*]")
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			walk(s.AdditionalProperties.Structural, path+"[*]")
		}
	}
	walk(root, "")
	sort.SliceStable(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// valueConstraints lists the constraints s states about the value at path itself.
func valueConstraints(s *structuralschema.Structural, path string) []constraint {
	vv := valueValidation(s)
	add := func(out []constraint, kind string, set bool, detail string) []constraint {
		if set {
			out = append(out, constraint{kind: kind, path: path, detail: detail})
		}
		return out
	}
	typ := s.Type
	if s.XIntOrString {
		typ = "int-or-string"
	}
	out := add(nil, "type", typ != "" && !s.XPreserveUnknownFields, typ)
	out = add(out, "nullable", s.Nullable, "")
	out = add(out, "format", vv.Format != "", vv.Format)
	var enum []string
	for _, e := range vv.Enum {
		enum = append(enum, fmt.Sprint(e.Object))
	}
	out = add(out, "enum", len(enum) > 0, strings.Join(enum, ", "))
	out = add(out, "pattern", vv.Pattern != "", vv.Pattern)
	out = add(out, "minLength", vv.MinLength != nil, itoa(vv.MinLength))
	out = add(out, "maxLength", vv.MaxLength != nil, itoa(vv.MaxLength))
	out = add(out, "minimum", vv.Minimum != nil, bound(vv.Minimum, vv.ExclusiveMinimum))
	out = add(out, "maximum", vv.Maximum != nil, bound(vv.Maximum, vv.ExclusiveMaximum))
	out = add(out, "multipleOf", vv.MultipleOf != nil, bound(vv.MultipleOf, false))
	out = add(out, "minItems", vv.MinItems != nil, itoa(vv.MinItems))
	out = add(out, "maxItems", vv.MaxItems != nil, itoa(vv.MaxItems))
	out = add(out, "uniqueItems", vv.UniqueItems, "")
	listType := ""
	if s.XListType != nil {
		listType = *s.XListType
	}
	out = add(out, "listSet", listType == "set", "")
	out = add(out, "listMap", listType == "map", "keys "+strings.Join(s.XListMapKeys, ", "))
	out = add(out, "minProperties", vv.MinProperties != nil, itoa(vv.MinProperties))
	out = add(out, "maxProperties", vv.MaxProperties != nil, itoa(vv.MaxProperties))
	for _, r := range s.XValidations {
		out = append(out, constraint{kind: "rule", path: path, detail: r.Rule, transition: strings.Contains(r.Rule, "oldSelf")})
	}
	if !s.XIntOrString && (len(vv.AllOf) > 0 || len(vv.AnyOf) > 0 || len(vv.OneOf) > 0 || vv.Not != nil) {
		out = append(out, constraint{kind: "unsupported", path: path, detail: "allOf, anyOf, oneOf or not"})
	}
	return out
}

// itoa renders an optional integer.
func itoa(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

// bound renders an optional number, "exclusive" when it is.
func bound(p *float64, exclusive bool) string {
	if p == nil {
		return ""
	}
	s := strconv.FormatFloat(*p, 'g', -1, 64)
	if exclusive {
		s += ", exclusive"
	}
	return s
}

// mutationKinds are, per constraint kind, the mutations (mutate_test.go and extraMutations)
// that break it; nullable's is a null its schema must accept.
var mutationKinds = map[string][]string{
	"type": {"type"}, "format": {"format"}, "enum": {"enum"}, "pattern": {"pattern"},
	"minLength": {"minLength"}, "maxLength": {"maxLength"}, "minimum": {"minimum"}, "maximum": {"maximum"},
	"multipleOf": {"multipleOf"}, "minItems": {"minItems"}, "maxItems": {"maxItems"},
	"uniqueItems": {"setItem"}, "listSet": {"setItem"}, "listMap": {"listMapKey"},
	"minProperties": {"minProperties"}, "maxProperties": {"maxProperties"},
	"required": {"required"}, "rule": {"rule"}, "nullable": {"null"},
}

// schemaPath is the schema path (as constraint.path) of the value at path in an object of
// the root schema s: list indices and map keys become [*].
func schemaPath(s *structuralschema.Structural, path []any) string {
	out := ""
	for _, el := range path {
		if s == nil {
			return out + "?"
		}
		_, index := el.(int)
		if index || (len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil) {
			out += "[*]"
			if s.Items != nil {
				s = s.Items
			} else {
				s = s.AdditionalProperties.Structural
			}
			continue
		}
		out = joinPath(out, el.(string))
		s = childSchema(s, el.(string))
	}
	return out
}

// causeAt reports whether a cause's field is the place path, or an item of it for the
// mutations that repeat an item (listMapKey, setItem), whichever way map keys are written.
func causeAt(field string, path []any, mutationKind string) bool {
	want := dotted(renderPath(path))
	got := dotted(field)
	if got == want {
		return true
	}
	if mutationKind == "listMapKey" || mutationKind == "setItem" {
		rest, ok := strings.CutPrefix(got, want+"[")
		return ok && strings.HasSuffix(rest, "]") && !strings.ContainsAny(rest[:len(rest)-1], ".[]")
	}
	return false
}

// extraMutations are mutations mutate_test.go does not draw: the wrong JSON type for
// apiVersion, kind and metadata (which its walk skips) and for properties obj leaves out, and
// integers just outside their int32 or int64 format.
func extraMutations(obj map[string]any, s *structuralschema.Structural) map[string][]mutation {
	out := map[string][]mutation{}
	add := func(kind string, path []any, v any) {
		path = append([]any(nil), path...)
		out[kind] = append(out[kind], mutation{kind: kind, path: path, apply: func(root map[string]any) {
			set(lookupPath(root, path[:len(path)-1]), path[len(path)-1], v)
		}})
	}
	add("type", []any{"apiVersion"}, int64(12345))
	add("type", []any{"kind"}, int64(12345))
	add("type", []any{"metadata"}, "not an object")
	var walk func(v any, s *structuralschema.Structural, path []any)
	walk = func(v any, s *structuralschema.Structural, path []any) {
		if s == nil {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(s.Properties) {
				if _, present := v[k]; !present {
					p := s.Properties[k]
					add("type", append(path, k), wrongType(&p))
				}
			}
			for _, k := range sortedKeys(v) {
				if len(path) > 0 || k != "metadata" {
					walk(v[k], childSchema(s, k), append(path, k))
				}
			}
		case []any:
			for i, item := range v {
				walk(item, s.Items, append(path, i))
			}
		case int64:
			switch valueValidation(s).Format {
			case "int32":
				add("format", path, int64(math.MaxInt32)+1)
			case "int64":
				add("format", path, json.Number("9223372036854775808"))
			}
		}
	}
	walk(obj, s, nil)
	return out
}

// fullValue draws a value s accepts with every optional property present, at least one item
// in every list and one entry in every map (as far as their bounds allow), and quantities as
// strings, so that every constraint of the schema has a place in it.
func (g *generator) fullValue(s *structuralschema.Structural) any {
	vv := valueValidation(s)
	switch {
	case len(vv.Enum) > 0:
		return g.value(s, 0)
	case s.XIntOrString:
		return g.str(s)
	case s.Type == "object" && (len(s.Properties) > 0 || s.AdditionalProperties != nil):
		out := map[string]any{}
		for _, name := range sortedKeys(s.Properties) {
			p := s.Properties[name]
			out[name] = g.fullValue(&p)
		}
		if ap := s.AdditionalProperties; ap != nil && ap.Structural != nil {
			for n := max(ptrOr(vv.MinProperties, 0), 1); int64(len(out)) < min(n, ptrOr(vv.MaxProperties, n)); {
				out[g.word(1, 8)] = g.fullValue(ap.Structural)
			}
		}
		return out
	case s.Type == "array":
		n := min(max(ptrOr(vv.MinItems, 0), 1), ptrOr(vv.MaxItems, math.MaxInt32))
		out := []any{}
		seen := map[string]bool{}
		for tries := 0; int64(len(out)) < n && tries < 20; tries++ {
			item := g.fullValue(s.Items)
			if key := identity(s, item); key == "" || !seen[key] {
				seen[key] = true
				out = append(out, item)
			}
		}
		return out
	}
	return g.value(s, 0)
}
