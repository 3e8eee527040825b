package registry

import (
	"fmt"
	"reflect"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// ValidateSelectableFields checks that every path of fields ("spec.engine", from
// +kubebuilder:selectablefield:JSONPath=`.spec.engine`) names a string, boolean or integer
// field of obj's type, as CustomResourceDefinition validation requires of selectableFields.
// Paths are resolved on the internal (hub) type, which field selectors are evaluated on;
// generated install code calls it when it builds a Store (the generator checks the versioned
// types already). Errors: the first path that does not resolve or is not such a scalar.
func ValidateSelectableFields(obj runtime.Object, fields []string) error {
	for _, f := range fields {
		fp, err := compileFieldPath(obj, f)
		if err != nil {
			return fmt.Errorf("cannot select on field %s: %w", f, err)
		}
		if k := fp.leaf.Kind(); k != reflect.String && k != reflect.Bool && !isInteger(k) {
			return fmt.Errorf("cannot select on field %s: %s is not a string, boolean or integer", f, fp.leaf)
		}
	}
	return nil
}

// fieldSelection validates sel against the fields the Store can select on: metadata.name,
// metadata.namespace and e.SelectableFields, as kube-apiserver does for custom resources. It
// returns the attribute function the storage filters with: GetAttrs when sel names only
// metadata fields, else one that also reads the named selectable fields from each object (so
// lists that do not select on them pay nothing). Errors: 400 "field label not supported: <f>".
func (e *Store) fieldSelection(sel fields.Selector) (storage.AttrFunc, error) {
	if sel == nil || sel.Empty() {
		return GetAttrs, nil
	}
	if e.FieldsFunc != nil {
		return e.builtinAttrs(sel)
	}
	var extra []string
	for _, r := range sel.Requirements() {
		switch {
		case r.Field == fieldName || r.Field == fieldNamespace:
		case e.selectable(r.Field):
			extra = append(extra, r.Field)
		default:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", r.Field))
		}
	}
	if len(extra) == 0 {
		return GetAttrs, nil
	}
	if _, ok := e.NewFunc().(runtime.Unstructured); ok {
		return unstructuredAttrs(extra), nil
	}
	paths := make(map[string]*fieldPath, len(extra))
	for _, f := range extra {
		fp, err := compileFieldPath(e.NewFunc(), f)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("cannot select on field %s: %w", f, err))
		}
		paths[f] = fp
	}
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		l, set, err := GetAttrs(obj)
		if err != nil {
			return nil, nil, err
		}
		for f, fp := range paths {
			set[f] = "" // a field that is unset (behind a nil pointer) selects as ""
			if v, ok := fp.get(obj, false); ok {
				set[f] = scalarString(v)
			}
		}
		return l, set, nil
	}, nil
}

// builtinAttrs is the fieldSelection of a Store with a FieldsFunc: sel may name
// metadata.name, metadata.namespace and the fields FieldsFunc returns for an empty object;
// the attribute function adds FieldsFunc's fields to GetAttrs's. Errors: as fieldSelection.
func (e *Store) builtinAttrs(sel fields.Selector) (storage.AttrFunc, error) {
	known := e.FieldsFunc(e.NewFunc())
	for _, r := range sel.Requirements() {
		if _, ok := known[r.Field]; !ok && r.Field != fieldName && r.Field != fieldNamespace {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", r.Field))
		}
	}
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		l, set, err := GetAttrs(obj)
		if err != nil {
			return nil, nil, err
		}
		for k, v := range e.FieldsFunc(obj) {
			set[k] = v
		}
		return l, set, nil
	}, nil
}

// selectable reports whether field is one of e.SelectableFields.
func (e *Store) selectable(field string) bool {
	for _, f := range e.SelectableFields {
		if f == field {
			return true
		}
	}
	return false
}

// unstructuredAttrs is the attribute function of fieldSelection for unstructured objects
// (custom resources): each field of extra is read from the object's content by its dotted
// path, as kube-apiserver reads a CustomResourceDefinition's selectableFields; unset or not
// a scalar selects as "".
func unstructuredAttrs(extra []string) storage.AttrFunc {
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		l, set, err := GetAttrs(obj)
		if err != nil {
			return nil, nil, err
		}
		u, ok := obj.(runtime.Unstructured)
		if !ok {
			return nil, nil, fmt.Errorf("cannot select fields of %T: not unstructured", obj)
		}
		content := u.UnstructuredContent()
		for _, f := range extra {
			set[f] = ""
			v, found, err := unstructured.NestedFieldNoCopy(content, strings.Split(f, ".")...)
			if err != nil || !found {
				continue
			}
			switch v.(type) {
			case string, bool, int64, float64:
				set[f] = fmt.Sprint(v)
			}
		}
		return l, set, nil
	}
}
