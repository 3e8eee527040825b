package registry

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// fieldPath is a dotted JSON path (".spec.replicas") compiled against a Go struct type: the
// struct fields to follow, named by their json tags as encoding/json names them, through
// inlined embedded structs and pointers.
type fieldPath struct {
	// path is the path as given, for errors.
	path string
	// steps are struct field indices, applied in order; a pointer met before a step (or at
	// the end) is dereferenced.
	steps []int
	// leaf is the type at the end of the path, pointers removed.
	leaf reflect.Type
}

// fieldPaths caches compiled paths by fieldPathKey.
var fieldPaths sync.Map

type fieldPathKey struct {
	t    reflect.Type
	path string
}

// compileFieldPath compiles path (".spec.replicas" or "spec.replicas") against the type of
// obj, a pointer to a struct; compiled paths are cached per type. Errors: a segment that names
// no field, or goes through something other than a struct (a map, a slice).
func compileFieldPath(obj any, path string) (*fieldPath, error) {
	t := reflect.TypeOf(obj)
	key := fieldPathKey{t, path}
	if fp, ok := fieldPaths.Load(key); ok {
		return fp.(*fieldPath), nil
	}
	fp := &fieldPath{path: path}
	cur := deref(t)
	for _, seg := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		if cur.Kind() != reflect.Struct {
			return nil, fmt.Errorf("cannot follow %q in %s: %s is not an object", path, t, cur)
		}
		steps, ft, ok := jsonField(cur, seg)
		if !ok {
			return nil, fmt.Errorf("cannot follow %q in %s: %s has no field %q", path, t, cur, seg)
		}
		fp.steps = append(fp.steps, steps...)
		cur = deref(ft)
	}
	fp.leaf = cur
	fieldPaths.Store(key, fp)
	return fp, nil
}

// deref removes t's pointers.
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonField finds the field of struct t that encoding/json names name, looking into inlined
// (anonymous, untagged or ",inline") structs; it returns the index steps and the field's type.
func jsonField(t reflect.Type, name string) ([]int, reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tagName, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tagName == "-" && opts == "" {
			continue
		}
		if tagName == "" && (f.Anonymous || opts == "inline") && deref(f.Type).Kind() == reflect.Struct {
			if steps, ft, ok := jsonField(deref(f.Type), name); ok {
				return append([]int{i}, steps...), ft, true
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if tagName == "" {
			tagName = f.Name
		}
		if tagName == name {
			return []int{i}, f.Type, true
		}
	}
	return nil, nil, false
}

// get returns the value at the path in obj, pointers removed; ok is false when a nil pointer
// is on the way. With alloc, nil pointers are allocated instead (obj must be a pointer).
func (fp *fieldPath) get(obj any, alloc bool) (v reflect.Value, ok bool) {
	v = reflect.ValueOf(obj)
	walk := func() bool {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !alloc || !v.CanSet() {
					return false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		return true
	}
	for _, i := range fp.steps {
		if !walk() {
			return reflect.Value{}, false
		}
		v = v.Field(i)
	}
	if !walk() {
		return reflect.Value{}, false
	}
	return v, true
}

// isInteger reports whether k is a signed or unsigned integer kind.
func isInteger(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// scalarString formats a string, boolean or integer value as a field selector compares it
// (as apiextensions-apiserver formats a custom resource's selectable fields).
func scalarString(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	}
	return ""
}
