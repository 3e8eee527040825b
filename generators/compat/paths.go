package compat

import (
	"github.com/apigen-dev/apigen/generators/model"
)

// node is the Go declaration behind one JSON path of a kind's object (".spec.replicas",
// ".spec.ports[*].name", ".spec.labels{*}"): the struct field the path's last property is
// (nil for the root and for the items and values of lists and maps), the struct type that
// declares it, and the named type of its value after pointers, if any.
type node struct {
	field *model.Field
	owner *model.Type
	typ   *model.Type
	// ref is the field's Go type (pointers included), nil for the root.
	ref *model.TypeRef
}

// pos is where the node is declared: its field, else its named type, else nowhere.
func (n node) pos() model.Position {
	switch {
	case n.field != nil:
		return n.field.Pos
	case n.typ != nil:
		return n.typ.Pos
	}
	return model.Position{}
}

// index maps every JSON path of a kind's object to its declaration, following fields,
// embedded structs (inline), list items ([*]) and map values ({*}) through local types;
// a type met again on the way down (a recursive type) and types of other modules
// (metav1.ObjectMeta, ...) end the walk, as their changes are not the API's own.
func index(t *model.Type) map[string]node {
	idx := map[string]node{"": {typ: t}}
	var walkType func(path string, t *model.Type, stack map[*model.Type]bool)
	var walkRef func(path string, r *model.TypeRef, stack map[*model.Type]bool)
	walkType = func(path string, t *model.Type, stack map[*model.Type]bool) {
		if t == nil || !t.Local || stack[t] {
			return
		}
		stack[t] = true
		defer delete(stack, t)
		if t.Kind != model.Struct {
			if t.Underlying != nil {
				walkRef(path, t.Underlying, stack)
			}
			return
		}
		for _, f := range t.Fields {
			switch {
			case f.JSONName == "-":
				continue
			case f.JSONName == "" && (f.Inline || f.Embedded):
				walkRef(path, f.Type, stack)
				continue
			case f.JSONName == "":
				continue
			}
			p := path + "." + f.JSONName
			idx[p] = node{field: f, owner: t, typ: namedOf(f.Type), ref: f.Type}
			walkRef(p, f.Type, stack)
		}
	}
	walkRef = func(path string, r *model.TypeRef, stack map[*model.Type]bool) {
		switch r.Kind {
		case model.Pointer:
			walkRef(path, r.Elem, stack)
		case model.Named:
			walkType(path, r.Named, stack)
		case model.Slice, model.Array:
			if r.Elem.Kind == model.Basic && r.Elem.Basic == "byte" {
				return
			}
			p := path + "[*]"
			if _, ok := idx[p]; !ok {
				idx[p] = node{typ: namedOf(r.Elem), ref: r.Elem}
			}
			walkRef(p, r.Elem, stack)
		case model.Map:
			p := path + "{*}"
			if _, ok := idx[p]; !ok {
				idx[p] = node{typ: namedOf(r.Elem), ref: r.Elem}
			}
			walkRef(p, r.Elem, stack)
		}
	}
	walkType("", t, map[*model.Type]bool{})
	return idx
}

// namedOf returns the named type r refers to through pointers, or nil.
func namedOf(r *model.TypeRef) *model.Type {
	for r != nil && r.Kind == model.Pointer {
		r = r.Elem
	}
	if r != nil && r.Kind == model.Named {
		return r.Named
	}
	return nil
}

// parent returns the path of the object or list holding path's last step ("" for a
// top-level property).
func parent(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		switch path[i] {
		case '.':
			return path[:i]
		case '[', '{':
			return path[:i]
		}
	}
	return ""
}

// nearest returns the node at path, else at its closest ancestor in idx, and the path found.
func nearest(idx map[string]node, path string) (node, string) {
	for {
		if n, ok := idx[path]; ok {
			return n, path
		}
		if path == "" {
			return node{}, ""
		}
		path = parent(path)
	}
}
