package fieldmanager

import (
	"encoding/base64"
	"reflect"

	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// reflectUnstructured returns what structured-merge-diff's reflection of obj (a pointer)
// reads, as unstructured data: value.NewValueReflect(obj).Unstructured(), built in one pass
// over the same reflect cache (value.TypeReflectEntryOf: JSON names, omitempty and omitzero,
// inlined structs, types with their own JSON or unstructured form). Comparing and merging
// unstructured maps is about twice as fast as reflecting on Go maps and structs at every
// visit, and the data, hence every field set and merge, is the same. ok is false for what
// the reflection cannot read (a uint64, an array, a map whose keys are not strings, a failing
// MarshalJSON), which is left to it.
func reflectUnstructured(obj any) (u any, ok bool) {
	v := reflect.ValueOf(obj)
	return toUnstructured(v, value.TypeReflectEntryOf(v.Type()))
}

var (
	stringMapType   = reflect.TypeFor[map[string]string]()
	stringSliceType = reflect.TypeFor[[]string]()
)

// toUnstructured converts v, whose static type's reflect cache entry is e, as
// structured-merge-diff's valueReflect reads it: a type with its own unstructured or JSON
// form is read through it (e.ToUnstructured), one pointer or interface is dereferenced,
// nil maps, slices, pointers and interfaces are null, structs are maps of their JSON fields,
// []byte is its base64 string, integers are int64 and floats float64.
func toUnstructured(v reflect.Value, e *value.TypeReflectCacheEntry) (any, bool) {
	if e.CanConvertToUnstructured() {
		u, err := e.ToUnstructured(v)
		if err != nil {
			return nil, false
		}
		if u == nil {
			return nil, true
		}
		v = reflect.ValueOf(u)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, true
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		return structToUnstructured(v)
	case reflect.Map:
		return mapToUnstructured(v)
	case reflect.Slice:
		return sliceToUnstructured(v)
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
		return v.Int(), true
	case reflect.Uint, reflect.Uint32, reflect.Uint16, reflect.Uint8:
		return int64(v.Uint()), true
	case reflect.Float64, reflect.Float32:
		return v.Float(), true
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, true
		}
	}
	return nil, false
}

// member is a field of a struct being converted.
type member struct {
	name  string
	value any
}

// structToUnstructured converts a struct to the map of its fields that are not omitted,
// made at its final size (most fields of most objects are omitted: sizing the map for all
// of them would allocate several times what it holds).
func structToUnstructured(v reflect.Value) (any, bool) {
	var local [16]member
	members := local[:0]
	for _, f := range value.TypeReflectEntryOf(v.Type()).OrderedFields() {
		fv := f.GetFrom(v)
		if f.CanOmit(fv) {
			continue
		}
		fu, ok := toUnstructured(fv, f.TypeEntry)
		if !ok {
			return nil, false
		}
		members = append(members, member{f.JsonName, fu})
	}
	out := make(map[string]any, len(members))
	for _, m := range members {
		out[m.name] = m.value
	}
	return out, true
}

// mapToUnstructured converts a map with string keys; a nil map is null.
func mapToUnstructured(v reflect.Value) (any, bool) {
	if v.IsNil() {
		return nil, true
	}
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		return nil, false
	}
	elem := value.TypeReflectEntryOf(t.Elem())
	out := make(map[string]any, v.Len())
	if t.Key() == stringMapType.Key() && t.Elem().Kind() == reflect.String && !elem.CanConvertToUnstructured() &&
		v.CanInterface() && t.ConvertibleTo(stringMapType) {
		for k, s := range v.Convert(stringMapType).Interface().(map[string]string) {
			out[k] = s
		}
		return out, true
	}
	for it := v.MapRange(); it.Next(); {
		ev := it.Value()
		if !ev.IsValid() {
			continue
		}
		u, ok := toUnstructured(ev, elem)
		if !ok {
			return nil, false
		}
		out[it.Key().String()] = u
	}
	return out, true
}

// sliceToUnstructured converts a slice: []byte to its base64 string, others to []any; a nil
// slice is null.
func sliceToUnstructured(v reflect.Value) (any, bool) {
	if v.IsNil() {
		return nil, true
	}
	t := v.Type()
	if t.Elem().Kind() == reflect.Uint8 {
		return base64.StdEncoding.EncodeToString(v.Bytes()), true
	}
	elem := value.TypeReflectEntryOf(t.Elem())
	out := make([]any, v.Len())
	if t.Elem().Kind() == reflect.String && !elem.CanConvertToUnstructured() && v.CanInterface() && t.ConvertibleTo(stringSliceType) {
		for i, s := range v.Convert(stringSliceType).Interface().([]string) {
			out[i] = s
		}
		return out, true
	}
	for i := range out {
		u, ok := toUnstructured(v.Index(i), elem)
		if !ok {
			return nil, false
		}
		out[i] = u
	}
	return out, true
}
