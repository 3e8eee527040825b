package structural

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// applyDefaults sets the defaults of s in x, as upstream's defaulting.Default: a property that is absent, or null
// while its schema is not nullable, gets a deep copy of its default; so does a null array item or
// additionalProperties value; then every value is defaulted by its own schema.
func applyDefaults(x any, s *Structural) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(s.properties) {
			prop := s.properties[k]
			if !prop.hasDefault || prop.dflt == nil {
				continue
			}
			if v, found := x[k]; !found || (v == nil && !prop.nullable) {
				x[k] = deepCopy(prop.dflt)
			}
		}
		for k, v := range x {
			if prop, ok := s.properties[k]; ok {
				applyDefaults(v, prop)
			} else if a := s.additional; a != nil {
				if v == nil && !a.nullable && a.hasDefault && a.dflt != nil {
					x[k] = deepCopy(a.dflt)
				}
				applyDefaults(x[k], a)
			}
		}
	case []any:
		it := s.items
		for i := range x {
			if it != nil && x[i] == nil && !it.nullable && it.hasDefault && it.dflt != nil {
				x[i] = deepCopy(it.dflt)
			}
			applyDefaults(x[i], it)
		}
	}
}

// pruneNulls removes, in place, the null values of x whose schema is not nullable and has no default, as
// upstream's PruneNonNullableNullsWithoutDefaults. Values the schema does not specify are left alone.
func pruneNulls(x any, s *Structural) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			var sub *Structural
			if s != nil {
				if sub = s.properties[k]; sub == nil {
					sub = s.additional
				}
			}
			if v == nil && sub != nil && !sub.nullable && (!sub.hasDefault || sub.dflt == nil) {
				delete(x, k)
				continue
			}
			pruneNulls(v, sub)
		}
	case []any:
		var items *Structural
		if s != nil {
			items = s.items
		}
		for _, v := range x {
			pruneNulls(v, items)
		}
	}
}

// deepCopy copies a JSON value, so a default is never shared between objects.
func deepCopy(x any) any {
	switch v := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	}
	return x
}

// checkDefaults checks every default below the schema s (parsed from m at path), as upstream's
// defaulting.ValidateDefaults: it must not have unknown fields (pruning it changes nothing) and must validate
// against its node's schema, errors under <path>.default. Defaults inside metadata at the root are not allowed.
func (p *parser) checkDefaults(s *Structural, m map[string]any, path *field.Path) field.ErrorList {
	if len(p.errs) > 0 || s == nil {
		return nil // the tree is not complete enough to check defaults
	}
	var errs field.ErrorList
	var walk func(s *Structural, m map[string]any, path *field.Path, root, insideMeta bool)
	walk = func(s *Structural, m map[string]any, path *field.Path, root, insideMeta bool) {
		if s.hasDefault && s.dflt != nil {
			errs = append(errs, checkDefault(s, m, path.Child("default"), insideMeta)...)
		}
		if s.items != nil {
			items, _ := m["items"].(map[string]any)
			walk(s.items, items, path.Child("items"), false, insideMeta)
		}
		props, _ := m["properties"].(map[string]any)
		for _, k := range sortedKeys(s.properties) {
			sub, _ := props[k].(map[string]any)
			walk(s.properties[k], sub, path.Child("properties").Key(k), false, insideMeta || ((root || s.embeddedResource) && metaFields[k]))
		}
	}
	walk(s, m, path, true, false)
	return errs
}

// checkDefault checks the default of one node.
func checkDefault(s *Structural, m map[string]any, path *field.Path, insideMeta bool) field.ErrorList {
	if insideMeta {
		return field.ErrorList{field.Forbidden(path, "must not be set inside metadata, apiVersion or kind")}
	}
	var pruned []string
	copied := deepCopy(s.dflt)
	prune(copied, s, s.embeddedResource, nil, &pruned)
	if len(pruned) > 0 {
		return field.ErrorList{field.Invalid(path, s.dflt, "must not have unknown fields")}
	}
	v, err := newValidator(m, path.String())
	if err != nil {
		return field.ErrorList{field.Invalid(path, s.dflt, fmt.Sprintf("cannot check the default: %v", err))}
	}
	errs := openAPIErrors(nil, v.Validate(s.dflt))
	errs = append(errs, validateLists(path, s.dflt, s)...)
	if len(errs) == 0 {
		// as upstream, the default is its own old value, so transition rules check it too.
		dflt := typed(s.dflt, s)
		errs = s.validateRules(context.Background(), path, dflt, dflt, true)
	}
	return errs
}
