package structural

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateLists checks the uniqueness of x-kubernetes-list-type set items and list-type map keys in x at path, as
// upstream's listtype.ValidateListSetsAndMaps: a value that repeats is one Duplicate error, at its second
// occurrence, with the item (sets) or its keys (maps) as the value. Scalars are equal when they are the same Go
// value (1 and 1.0, decoded as int64 and float64, differ), objects and lists when their JSON is.
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
			for _, i := range repeats(x) {
				errs = append(errs, field.Duplicate(path.Index(i), x[i]))
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

// repeats returns the indices at which a value of values occurs for the second time, as upstream's
// validateListSet: scalars compare as Go values, objects and lists by their JSON.
func repeats(values []any) []int {
	if len(values) <= 1 {
		return nil
	}
	seen := make(map[any]int, len(values))
	var out []int
	for i, x := range values {
		var key any = x
		switch x.(type) {
		case map[string]any, []any:
			b, _ := json.Marshal(x)
			key = compound(b)
		}
		if seen[key]++; seen[key] == 2 {
			out = append(out, i)
		}
	}
	return out
}

// compound is the JSON of an object or a list, as a key of repeats apart from scalar strings.
type compound string

// validateListMap checks that the items of a list-type map are objects with unique keys: an item whose keys (those
// present; none for a null item) repeat an earlier item's is a Duplicate error with those keys as the value, once
// per repeated key.
func (s *Structural) validateListMap(path *field.Path, list []any) field.ErrorList {
	for i, x := range list {
		if _, ok := x.(map[string]any); x != nil && !ok {
			return field.ErrorList{field.Invalid(path.Index(i), x, "must be an object for an array of list-type map")}
		}
	}
	keys := make([]any, len(list))
	for i, x := range list {
		keys[i] = s.keyValues(x)
	}
	var errs field.ErrorList
	for _, i := range s.repeatedKeys(keys) {
		errs = append(errs, field.Duplicate(path.Index(i), keys[i]))
	}
	return errs
}

// repeatedKeys returns the indices of the items whose keys (keyValues) repeat, as upstream: with one key field its
// value compares as a scalar (an absent key being a value of its own), with more the keys compare as JSON.
func (s *Structural) repeatedKeys(keys []any) []int {
	if len(s.listMapKeys) != 1 {
		return repeats(keys)
	}
	type absent struct{}
	values := make([]any, len(keys))
	for i, k := range keys {
		v, ok := k.(map[string]any)[s.listMapKeys[0]]
		if !ok {
			v = absent{}
		}
		values[i] = v
	}
	return repeats(values)
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
