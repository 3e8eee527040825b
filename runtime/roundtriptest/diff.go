package roundtriptest

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Difference is one field whose value differs between two objects.
type Difference struct {
	// Path is the field's path as Kubernetes' field.Path writes it, with JSON names
	// ("spec.backup.retentionDays", "spec.replicas[2].name", "metadata.labels[app]"); a field
	// without a json tag (an internal type's) goes by its Go name. Empty for the objects
	// themselves.
	Path string
	// In and Out are the field's values before and after, "<absent>" for a missing map key.
	In, Out string
}

// String returns "<path>: <in> -> <out>".
func (d Difference) String() string {
	path := d.Path
	if path == "" {
		path = "<object>"
	}
	return fmt.Sprintf("%s: %s -> %s", path, d.In, d.Out)
}

// maxValue is how many characters of a value a Difference keeps.
const maxValue = 200

// Diff returns the differences between a and b, two values of one type, by apimachinery's
// semantic equality (apiequality.Semantic: quantities by value, times at second precision,
// nil and empty slices and maps alike), sorted by path: each the deepest field that
// differs, a struct field, a slice element (or the slice, when the lengths differ), a map
// entry, or a pointer that is nil on one side only. A difference only in unexported fields is
// reported at the nearest exported field. Diff returns nil when a and b are semantically
// equal.
func Diff(a, b any) []Difference {
	var ds []Difference
	diffValues(nil, reflect.ValueOf(a), reflect.ValueOf(b), &ds)
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Path < ds[j].Path })
	return ds
}

// diffValues appends to ds the differences between a and b below path.
func diffValues(path *field.Path, a, b reflect.Value, ds *[]difference) {
	if equal(a, b) {
		return
	}
	before := len(*ds)
	defer func() {
		if len(*ds) == before {
			*ds = append(*ds, leaf(path, a, b))
		}
	}()
	if !a.IsValid() || !b.IsValid() || a.Type() != b.Type() {
		return
	}
	if _, custom := apiequality.Semantic.Equalities[a.Type()]; custom {
		return
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return
		}
		diffValues(path, a.Elem(), b.Elem(), ds)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			f := a.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			diffValues(fieldPath(path, f), a.Field(i), b.Field(i), ds)
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return
		}
		for i := 0; i < a.Len(); i++ {
			diffValues(child(path).Index(i), a.Index(i), b.Index(i), ds)
		}
	case reflect.Map:
		keys := map[string]reflect.Value{}
		for _, m := range []reflect.Value{a, b} {
			for _, k := range m.MapKeys() {
				keys[fmt.Sprint(k.Interface())] = k
			}
		}
		names := make([]string, 0, len(keys))
		for n := range keys {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			diffValues(child(path).Key(n), a.MapIndex(keys[n]), b.MapIndex(keys[n]), ds)
		}
	}
}

// difference is Difference, named so inside the walk.
type difference = Difference

// equal reports whether a and b are semantically equal; two invalid values (a map key
// neither has) are.
func equal(a, b reflect.Value) bool {
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	if !a.CanInterface() || !b.CanInterface() {
		return reflect.DeepEqual(a, b)
	}
	return apiequality.Semantic.DeepEqual(a.Interface(), b.Interface())
}

// fieldPath returns path extended by struct field f: its JSON name, its Go name when it has no
// json tag, path itself when f is inline or embedded without a name.
func fieldPath(path *field.Path, f reflect.StructField) *field.Path {
	name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch {
	case strings.Contains(","+opts+",", ",inline,") || (f.Anonymous && name == ""):
		return path
	case name == "" || name == "-":
		name = f.Name
	}
	if path == nil {
		return field.NewPath(name)
	}
	return path.Child(name)
}

// child returns path, or the root path "<object>" when there is none (a slice or map at the
// top level).
func child(path *field.Path) *field.Path {
	if path == nil {
		return field.NewPath("")
	}
	return path
}

// leaf returns the difference of a and b at path.
func leaf(path *field.Path, a, b reflect.Value) Difference {
	d := Difference{In: show(a), Out: show(b)}
	if path != nil {
		d.Path = path.String()
	}
	if a.IsValid() && b.IsValid() && (a.Kind() == reflect.Slice || a.Kind() == reflect.Array) && a.Len() != b.Len() {
		d.In, d.Out = fmt.Sprintf("%d items %s", a.Len(), d.In), fmt.Sprintf("%d items %s", b.Len(), d.Out)
	}
	return d
}

// show formats v for a Difference, "<absent>" when invalid.
func show(v reflect.Value) string {
	if !v.IsValid() {
		return "<absent>"
	}
	var s string
	switch {
	case !v.CanInterface():
		s = v.String()
	case (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil():
		s = "nil"
	case v.Kind() == reflect.Pointer:
		s = "&" + show(v.Elem())
	case stringer(v) != nil:
		s = stringer(v).String()
	case v.Kind() == reflect.String:
		s = fmt.Sprintf("%q", v.Interface())
	default:
		s = fmt.Sprintf("%+v", v.Interface())
	}
	if len(s) > maxValue {
		s = s[:maxValue] + "..."
	}
	return s
}

// stringer returns v (or a pointer to a copy of it) as a fmt.Stringer when its type has a
// String method (resource.Quantity, metav1.Time), else nil.
func stringer(v reflect.Value) fmt.Stringer {
	if s, ok := v.Interface().(fmt.Stringer); ok {
		return s
	}
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	if s, ok := p.Interface().(fmt.Stringer); ok {
		return s
	}
	return nil
}
