package load

import (
	"fmt"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// checkKindPaths reports a diagnostic for every JSON path of k's markers that does not name
// a field of the right type: selectable fields must be strings, booleans or integers (as a
// CustomResourceDefinition's selectableFields), the scale subresource's spec and status
// replicas integers and its selector a string; paths go through structs and pointers only.
func (b *builder) checkKindPaths(k *model.Kind) {
	check := func(marker, path string, ok func(basic string) bool, want string) {
		basic, ref, err := basicAt(k.Type, path)
		switch {
		case err != nil:
			b.errorf(k.Pos, "%s %s of %s: %v", marker, path, k.Name, err)
		case !ok(basic):
			b.errorf(k.Pos, "%s %s of %s: the field is a %s, not %s", marker, path, k.Name, ref, want)
		}
	}
	for _, p := range k.SelectableFields {
		check("+kubebuilder:selectablefield", p, func(b string) bool { return b == "string" || b == "bool" || isInteger(b) },
			"a string, boolean or integer")
	}
	if s := k.Scale; s != nil {
		check("+kubebuilder:subresource:scale specpath", s.SpecReplicasPath, isInteger, "an integer")
		check("+kubebuilder:subresource:scale statuspath", s.StatusReplicasPath, isInteger, "an integer")
		if s.LabelSelectorPath != "" {
			check("+kubebuilder:subresource:scale selectorpath", s.LabelSelectorPath,
				func(b string) bool { return b == "string" }, "a string")
		}
	}
}

// isInteger reports whether basic names a Go integer type.
func isInteger(basic string) bool {
	switch basic {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return true
	}
	return false
}

// basicAt follows the dotted JSON path (".spec.replicas") from t and returns the basic type
// at its end ("int32" for a *int32 field or a `type Count int32`), or "" when the field is
// not of a basic type, with the field's type as declared. Errors: a segment that names no
// field or crosses a non-struct.
func basicAt(t *model.Type, path string) (basic string, declared *model.TypeRef, err error) {
	ref := &model.TypeRef{Kind: model.Named, Named: t}
	for _, seg := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		st := structOf(ref)
		if st == nil {
			return "", nil, fmt.Errorf("cannot follow %q: %s is not an object", seg, ref)
		}
		f := jsonField(st, seg)
		if f == nil {
			return "", nil, fmt.Errorf("%s has no field %q", st.Name.Name, seg)
		}
		ref = f.Type
	}
	declared = ref
	for {
		switch {
		case ref.Kind == model.Pointer:
			ref = ref.Elem
		case ref.Kind == model.Named && ref.Named.Kind != model.Struct && ref.Named.Underlying != nil:
			ref = ref.Named.Underlying
		case ref.Kind == model.Basic:
			return ref.Basic, declared, nil
		default:
			return "", declared, nil
		}
	}
}

// structOf returns the struct type ref refers to through pointers, or nil.
func structOf(ref *model.TypeRef) *model.Type {
	for ref.Kind == model.Pointer {
		ref = ref.Elem
	}
	if ref.Kind == model.Named && ref.Named.Kind == model.Struct {
		return ref.Named
	}
	return nil
}

// jsonField returns the field of t that encoding/json calls name, looking into inlined
// embedded structs, or nil.
func jsonField(t *model.Type, name string) *model.Field {
	for _, f := range t.Fields {
		if f.JSONName == "-" {
			continue
		}
		if f.JSONName == "" && (f.Inline || f.Embedded) {
			if st := structOf(f.Type); st != nil {
				if found := jsonField(st, name); found != nil {
					return found
				}
			}
			continue
		}
		jsonName := f.JSONName
		if jsonName == "" {
			jsonName = f.Name
		}
		if jsonName == name {
			return f
		}
	}
	return nil
}
