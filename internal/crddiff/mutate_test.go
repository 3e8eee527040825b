package crddiff

import (
	"fmt"
	"sort"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime"
)

// A mutation breaks, or tests, one thing of a valid object at one place. Each kind aims at
// one constraint of the schema (or at decoding):
//
//	required    a required key removed
//	defaulted   a key with a default removed, so that the default applies
//	null        a value replaced by null
//	enum        a string outside its enum
//	pattern     a string that does not match its pattern
//	format      a string not of its format
//	minLength   a string one character shorter than minLength
//	maxLength   a string one character longer than maxLength
//	minimum     a number just below minimum (at it, when exclusive)
//	maximum     a number just above maximum (at it, when exclusive)
//	multipleOf  a number that is not a multiple
//	minItems    a list one item shorter than minItems
//	maxItems    a list one item longer than maxItems
//	minProperties, maxProperties  a map one entry short, or over
//	listMapKey  an item of a list-type map repeated with the same key fields
//	setItem     an item of a list-type set (or uniqueItems list) repeated
//	unknown     an unknown field added to an object with properties (metadata too)
//	type        a value of the wrong JSON type
//	rule        a value under x-kubernetes-validations drawn anew, which may break the rule
type mutation struct {
	kind string
	path []any // keys (string) and indices (int) from the root
	// apply changes the object in place.
	apply func(root map[string]any)
}

// String renders m as "kind at path".
func (m mutation) String() string { return m.kind + " at " + renderPath(m.path) }

// renderPath renders a path as field.Path does: spec.tools[0].name, spec.lines[a].
func renderPath(path []any) string {
	var b strings.Builder
	for i, el := range path {
		switch el := el.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", el)
		case string:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(el)
		}
	}
	return b.String()
}

// mutations lists every mutation that applies to obj, a valid object of the root schema s,
// by kind.
func (g *generator) mutations(obj map[string]any, s *structuralschema.Structural) map[string][]mutation {
	out := map[string][]mutation{}
	add := func(kind string, path []any, apply func(parent any, key any)) {
		path = append([]any(nil), path...)
		out[kind] = append(out[kind], mutation{kind: kind, path: path, apply: func(root map[string]any) {
			parent := lookupPath(root, path[:len(path)-1])
			apply(parent, path[len(path)-1])
		}})
	}
	if _, ok := obj["metadata"].(map[string]any); ok {
		add("unknown", []any{"metadata", "unknownMetadataField"}, func(parent, key any) { set(parent, key, "x") })
	}
	g.walk(obj, s, nil, nil, add)
	return out
}

// walk visits v, the value at path of schema s inside an object of schema parent (nil at the
// root), and everything below it, adding the mutations that apply.
func (g *generator) walk(v any, s, parent *structuralschema.Structural, path []any, add func(string, []any, func(any, any))) {
	if s == nil {
		return
	}
	vv := valueValidation(s)
	if len(path) > 0 && !(len(path) == 1 && (path[0] == "apiVersion" || path[0] == "kind")) {
		g.valueMutations(v, s, parent, path, add)
	}
	switch v := v.(type) {
	case map[string]any:
		if len(s.Properties) > 0 && !s.XPreserveUnknownFields {
			add("unknown", append(path, "unknownField"), func(p, k any) { set(p, k, map[string]any{"a": int64(1)}) })
		}
		for _, k := range sortedKeys(v) {
			if k == "metadata" && len(path) == 0 {
				continue
			}
			child := childSchema(s, k)
			g.walk(v[k], child, s, append(path, k), add)
		}
		if ap := s.AdditionalProperties; ap != nil && ap.Structural != nil {
			if vv.MinProperties != nil && len(v) > 0 && int64(len(v)) >= *vv.MinProperties {
				add("minProperties", path, func(p, k any) { set(p, k, firstN(v, int(*vv.MinProperties)-1)) })
			}
			if vv.MaxProperties != nil {
				add("maxProperties", path, func(p, k any) {
					m := runtime.DeepCopyJSONValue(v).(map[string]any)
					for i := 0; int64(len(m)) <= *vv.MaxProperties; i++ {
						m[fmt.Sprintf("extra%d", i)] = g.value(ap.Structural, 1)
					}
					set(p, k, m)
				})
			}
		}
	case []any:
		for i, item := range v {
			g.walk(item, s.Items, s, append(path, i), add)
		}
		g.listMutations(v, s, path, add)
	}
}

// valueMutations adds the mutations of the value v itself, whatever its type.
func (g *generator) valueMutations(v any, s, parent *structuralschema.Structural, path []any, add func(string, []any, func(any, any))) {
	key := path[len(path)-1]
	if name, ok := key.(string); ok && parent != nil {
		for _, r := range valueValidation(parent).Required {
			if r == name {
				add("required", path, func(p, k any) { delete(p.(map[string]any), k.(string)) })
			}
		}
		if s.Default.Object != nil {
			add("defaulted", path, func(p, k any) { delete(p.(map[string]any), k.(string)) })
		}
	}
	add("null", path, func(p, k any) { set(p, k, nil) })
	add("type", path, func(p, k any) { set(p, k, wrongType(s)) })
	if len(s.XValidations) > 0 {
		add("rule", path, func(p, k any) { set(p, k, g.value(s, 2)) })
	}
	vv := valueValidation(s)
	switch v := v.(type) {
	case string:
		g.stringMutations(v, s, path, add)
	case int64, float64:
		f := toFloat(v)
		if vv.Minimum != nil {
			add("minimum", path, func(p, k any) { set(p, k, below(s, *vv.Minimum, vv.ExclusiveMinimum)) })
		}
		if vv.Maximum != nil {
			add("maximum", path, func(p, k any) { set(p, k, above(s, *vv.Maximum, vv.ExclusiveMaximum)) })
		}
		if m := vv.MultipleOf; m != nil && (s.Type != "integer" || *m >= 2) {
			add("multipleOf", path, func(p, k any) { set(p, k, number(s, f+*m/2)) })
		}
	}
}

// stringMutations adds the mutations of a string value.
func (g *generator) stringMutations(v string, s *structuralschema.Structural, path []any, add func(string, []any, func(any, any))) {
	vv := valueValidation(s)
	if len(vv.Enum) > 0 {
		add("enum", path, func(p, k any) { set(p, k, "notInTheEnum") })
	}
	if vv.Pattern != "" {
		if re := g.regexp(vv.Pattern); re != nil {
			for _, bad := range []string{"!", "not valid!", "-x-", "x y", "."} {
				if !re.MatchString(bad) {
					add("pattern", path, func(p, k any) { set(p, k, bad) })
					break
				}
			}
		}
	}
	if f, ok := formatSamples[vv.Format]; ok && len(f.invalid) > 0 {
		bad := f.invalid[g.r.IntN(len(f.invalid))]
		add("format", path, func(p, k any) { set(p, k, bad) })
	}
	if vv.MinLength != nil && *vv.MinLength > 0 {
		n := int(*vv.MinLength) - 1
		add("minLength", path, func(p, k any) { set(p, k, strings.Repeat("a", n)) })
	}
	if vv.MaxLength != nil {
		n := int(*vv.MaxLength) + 1
		add("maxLength", path, func(p, k any) { set(p, k, strings.Repeat("a", n)) })
	}
}

// listMutations adds the mutations of a list's length and uniqueness.
func (g *generator) listMutations(v []any, s *structuralschema.Structural, path []any, add func(string, []any, func(any, any))) {
	vv := valueValidation(s)
	if len(path) == 0 {
		return
	}
	if vv.MinItems != nil && *vv.MinItems > 0 && int64(len(v)) >= *vv.MinItems {
		add("minItems", path, func(p, k any) { set(p, k, runtime.DeepCopyJSONValue(v).([]any)[:*vv.MinItems-1]) })
	}
	if vv.MaxItems != nil && *vv.MaxItems < 64 {
		add("maxItems", path, func(p, k any) {
			l := runtime.DeepCopyJSONValue(v).([]any)
			for int64(len(l)) <= *vv.MaxItems {
				l = append(l, g.value(s.Items, 1))
			}
			set(p, k, l)
		})
	}
	if len(v) == 0 {
		return
	}
	i := g.r.IntN(len(v))
	switch {
	case s.XListType != nil && *s.XListType == "map":
		add("listMapKey", path, func(p, k any) {
			dup := g.value(s.Items, 1)
			if m, ok := dup.(map[string]any); ok {
				item, _ := v[i].(map[string]any) // an earlier mutation may have given the item another type
				for _, key := range s.XListMapKeys {
					if kv, ok := item[key]; ok {
						m[key] = kv
					}
				}
			}
			set(p, k, append(runtime.DeepCopyJSONValue(v).([]any), dup))
		})
	case s.XListType != nil && *s.XListType == "set", vv.UniqueItems:
		add("setItem", path, func(p, k any) {
			set(p, k, append(runtime.DeepCopyJSONValue(v).([]any), runtime.DeepCopyJSONValue(v[i])))
		})
	}
}

// childSchema returns the schema of property k of an object of schema s, or nil.
func childSchema(s *structuralschema.Structural, k string) *structuralschema.Structural {
	if p, ok := s.Properties[k]; ok {
		return &p
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Structural
	}
	return nil
}

// wrongType returns a value of another JSON type than s's.
func wrongType(s *structuralschema.Structural) any {
	switch {
	case s.XIntOrString:
		return true
	case s.Type == "string":
		return int64(12345)
	case s.Type == "integer", s.Type == "number":
		return "12"
	case s.Type == "boolean":
		return "true"
	case s.Type == "array":
		return map[string]any{"a": int64(1)}
	}
	return "not an object"
}

// below returns the closest value of s's type under min (min itself when exclusive).
func below(s *structuralschema.Structural, min float64, exclusive bool) any {
	if exclusive {
		return number(s, min)
	}
	if s.Type == "integer" {
		return number(s, min-1)
	}
	return number(s, min-0.5)
}

// above returns the closest value of s's type over max (max itself when exclusive).
func above(s *structuralschema.Structural, max float64, exclusive bool) any {
	if exclusive {
		return number(s, max)
	}
	if s.Type == "integer" {
		return number(s, max+1)
	}
	return number(s, max+0.5)
}

// number returns f as s's JSON number type: int64 for integers (f truncated), else float64.
func number(s *structuralschema.Structural, f float64) any {
	if s.Type == "integer" {
		return int64(f)
	}
	return f
}

// toFloat returns a JSON number as float64.
func toFloat(v any) float64 {
	if i, ok := v.(int64); ok {
		return float64(i)
	}
	return v.(float64)
}

// firstN returns a copy of m with its first n entries in key order.
func firstN(m map[string]any, n int) map[string]any {
	out := map[string]any{}
	for _, k := range sortedKeys(m)[:max(n, 0)] {
		out[k] = runtime.DeepCopyJSONValue(m[k])
	}
	return out
}

// set sets key of the container parent (a map or a list) to v.
func set(parent, key, v any) {
	switch p := parent.(type) {
	case map[string]any:
		p[key.(string)] = v
	case []any:
		p[key.(int)] = v
	}
}

// lookupPath returns the value at path in root.
func lookupPath(root map[string]any, path []any) any {
	var cur any = root
	for _, el := range path {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[el.(string)]
		case []any:
			cur = c[el.(int)]
		}
	}
	return cur
}

// pick chooses one mutation: a kind first, uniformly among those that apply, then a place,
// so that rare constraints are tried as often as common ones.
func (g *generator) pick(all map[string][]mutation) (mutation, bool) {
	if len(all) == 0 {
		return mutation{}, false
	}
	kinds := make([]string, 0, len(all))
	for k := range all {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	sites := all[kinds[g.r.IntN(len(kinds))]]
	return sites[g.r.IntN(len(sites))], true
}
