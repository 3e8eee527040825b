package structural

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateLists checks the uniqueness of x-kubernetes-list-type set items and list-type map keys in x at path, as
// upstream's listtype.ValidateListSetsAndMaps: every item equal to an earlier one is a Duplicate error, with the
// item (sets) or its keys (maps) as the value.
func validateLists(path *field.Path, x any, s *Structural) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if sub, ok := s.properties[k]; ok {
				errs = append(errs, validateLists(path.Child(k), x[k], sub)...)
			} else if s.additional != nil {
				errs = append(errs, validateLists(path.Key(k), x[k], s.additional)...)
			}
		}
	case []any:
		switch s.listType {
		case "set":
			seen := map[string]bool{}
			for i, item := range x {
				k := canonical(item)
				if seen[k] {
					errs = append(errs, field.Duplicate(path.Index(i), item))
				}
				seen[k] = true
			}
		case "map":
			errs = append(errs, s.validateListMap(path, x)...)
		}
		for i, item := range x {
			errs = append(errs, validateLists(path.Index(i), item, s.items)...)
		}
	}
	return errs
}

// validateListMap checks that the items of a list-type map are objects with unique keys.
func (s *Structural) validateListMap(path *field.Path, list []any) field.ErrorList {
	for i, x := range list {
		if _, ok := x.(map[string]any); x != nil && !ok {
			return field.ErrorList{field.Invalid(path.Index(i), x, "must be an object for an array of list-type map")}
		}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, x := range list {
		k, _ := s.mapKey(x)
		if seen[k] {
			errs = append(errs, field.Duplicate(path.Index(i), s.keyValues(x)))
		}
		seen[k] = true
	}
	return errs
}

// keyValues returns the key fields of a list-type map item x, as upstream reports a duplicate.
func (s *Structural) keyValues(x any) map[string]any {
	m, _ := x.(map[string]any)
	out := map[string]any{}
	for _, k := range s.listMapKeys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// mapKey returns the canonical form of the keys of a list-type map item; ok is false when x is not an object.
func (s *Structural) mapKey(x any) (string, bool) {
	if _, ok := x.(map[string]any); !ok && x != nil {
		return "", false
	}
	return canonical(s.keyValues(x)), true
}

// canonical returns a JSON form of x in which equal values are equal strings (map keys sorted, integral numbers
// without fraction whether int64 or float64).
func canonical(x any) string {
	b, err := json.Marshal(normalizeNumbers(x))
	if err != nil {
		return ""
	}
	return string(b)
}

// normalizeNumbers returns x with every integral float64 as an int64, so 1 and 1.0 compare equal.
func normalizeNumbers(x any) any {
	switch v := x.(type) {
	case float64:
		if v == float64(int64(v)) {
			return int64(v)
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = normalizeNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalizeNumbers(e)
		}
		return out
	}
	return x
}
