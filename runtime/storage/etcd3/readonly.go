package etcd3

import (
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// objectMetaType is the type whose value a shallow copy must hold by value.
var objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()

// shallowCopyable caches, per type, whether shareable reports true.
var shallowCopyable sync.Map // reflect.Type -> bool

// shareable reports whether a shallow copy of objects of obj's type (a pointer to a struct
// with an embedded metav1.ObjectMeta value) has metadata of its own: setting its
// resourceVersion then changes only the copy. Unstructured objects (one map) are not.
func shareable(obj runtime.Object) bool {
	t := reflect.TypeOf(obj)
	if v, ok := shallowCopyable.Load(t); ok {
		return v.(bool)
	}
	ok := false
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		f, found := t.Elem().FieldByName("ObjectMeta")
		ok = found && f.Anonymous && f.Type == objectMetaType
	}
	shallowCopyable.Store(t, ok)
	return ok
}

// shallowCopy returns a new object holding a copy of *obj's struct value: its own top-level
// fields, ObjectMeta included, sharing everything they point to. obj must be shareable.
func shallowCopy(obj runtime.Object) runtime.Object {
	v := reflect.ValueOf(obj).Elem()
	out := reflect.New(v.Type())
	out.Elem().Set(v)
	return out.Interface().(runtime.Object)
}
