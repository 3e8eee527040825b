package storage

import (
	"context"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// objectMetaType is the type whose value a shallow copy must hold by value.
var objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()

// shallowCopyable caches, per type, whether Shareable reports true.
var shallowCopyable sync.Map // reflect.Type -> bool

// Shareable reports whether a shallow copy of obj (see ShallowCopy) has metadata of its own:
// obj's type is a pointer to a struct with an embedded metav1.ObjectMeta value, so setting a
// copy's resourceVersion (or TypeMeta, as encoders do) changes only the copy. Unstructured
// objects (one map) are not.
func Shareable(obj runtime.Object) bool {
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

// ShallowCopy returns a new object holding a copy of *obj's struct value: its own top-level
// fields, ObjectMeta included, sharing everything they point to. obj must be Shareable.
func ShallowCopy(obj runtime.Object) runtime.Object {
	v := reflect.ValueOf(obj).Elem()
	out := reflect.New(v.Type())
	out.Elem().Set(v)
	return out.Interface().(runtime.Object)
}

// CopyFor returns a copy of obj, a shared object no one may change, for a caller that only
// reads it (readOnly: a ShallowCopy when obj is Shareable) or may change it (a deep copy).
// A shallow copy shares obj's maps, slices and pointers: its reader must not change them.
func CopyFor(obj runtime.Object, readOnly bool) runtime.Object {
	if readOnly && Shareable(obj) {
		return ShallowCopy(obj)
	}
	return obj.DeepCopyObject()
}

// internalWatchKey marks a context whose watch a storage layer opens for itself.
type internalWatchKey struct{}

// WithInternalWatch returns ctx marked for the list and watch a storage layer makes for its
// own use (a watch cache filling itself from etcd), not for a client: implementations leave
// such watches out of apiserver_registered_watchers, which counts the clients' watches, as
// kube-apiserver's (whose watch cache counts its own watchers instead), and keep no copies
// of what such reads return (the caller holds them).
func WithInternalWatch(ctx context.Context) context.Context {
	return context.WithValue(ctx, internalWatchKey{}, true)
}

// InternalWatch reports whether ctx was marked by WithInternalWatch.
func InternalWatch(ctx context.Context) bool {
	v, _ := ctx.Value(internalWatchKey{}).(bool)
	return v
}
