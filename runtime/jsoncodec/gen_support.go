package jsoncodec

import (
	"reflect"
	"sort"
)

// RegisteredTypes returns the types T (not *T) that have a registered codec, sorted by
// package path and name; tests use it to check every generated codec of a package.
func RegisteredTypes() []reflect.Type {
	var out []reflect.Type
	codecs.Range(func(k, _ any) bool {
		out = append(out, k.(reflect.Type).Elem())
		return true
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].PkgPath() != out[j].PkgPath() {
			return out[i].PkgPath() < out[j].PkgPath()
		}
		return out[i].Name() < out[j].Name()
	})
	return out
}
