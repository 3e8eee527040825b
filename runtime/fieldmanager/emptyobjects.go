package fieldmanager

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// emptyObjects is the convertor field management converts with: an empty object (every
// field but apiVersion and kind unset, such as the live object of a create, or of a
// server-side apply that creates) converts to an empty object of the target version without
// calling the conversion, as kube-apiserver never converts one: its create handler starts
// from an empty object of the request's version (scope.Creater.New(scope.Kind)), and
// apiextensions-apiserver's webhook converter answers an empty object itself
// (isEmptyUnstructuredObject). A user's conversion may reject an empty object (a required
// field unset), which would otherwise leave the write without managedFields.
type emptyObjects struct {
	runtime.ObjectConvertor
	creater runtime.ObjectCreater
	typer   runtime.ObjectTyper
}

// ConvertToVersion returns a new empty object of in's kind in target's version when in is
// empty and its kind known, else converts in with the wrapped convertor.
func (c emptyObjects) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	if isEmptyObject(in) {
		kinds := []schema.GroupVersionKind{in.GetObjectKind().GroupVersionKind()}
		if kinds[0].Empty() && c.typer != nil {
			kinds, _, _ = c.typer.ObjectKinds(in)
		}
		if gvk, ok := target.KindForGroupVersionKinds(kinds); ok && !gvk.Empty() {
			if out, err := c.creater.New(gvk); err == nil {
				out.GetObjectKind().SetGroupVersionKind(gvk)
				return out, nil
			}
		}
	}
	return c.ObjectConvertor.ConvertToVersion(in, target)
}

// typeMetaType is the type of the embedded metav1.TypeMeta an empty typed object may set.
var typeMetaType = reflect.TypeFor[metav1.TypeMeta]()

// isEmptyObject reports whether obj sets no field but apiVersion and kind: an unstructured
// object with only those keys, or a pointer to a struct whose every field but its TypeMeta
// is the zero value.
func isEmptyObject(obj runtime.Object) bool {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		for k := range u.Object {
			if k != "apiVersion" && k != "kind" {
				return false
			}
		}
		return true
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return false
	}
	v = v.Elem()
	for i := range v.NumField() {
		if v.Type().Field(i).Type == typeMetaType {
			continue
		}
		if !v.Field(i).IsZero() {
			return false
		}
	}
	return true
}
