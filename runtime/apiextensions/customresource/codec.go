package customresource

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// storageCodec is the etcd codec of one custom resource, as apiextensions-apiserver's storage
// codec for conversion strategy None: objects are stored as JSON with the storage version's
// apiVersion; read back, they get that apiVersion (whatever version wrote them) and are
// pruned and defaulted with the storage version's schema, so a default added to the schema
// later shows on objects stored before.
type storageCodec struct {
	gvk schema.GroupVersionKind
	// version is the storage version's definition; nil when it is not served (no schema).
	version *Version
}

var _ runtime.Codec = (*storageCodec)(nil)

// Encode writes obj, an *unstructured.Unstructured, as JSON in the storage version.
func (c *storageCodec) Encode(obj runtime.Object, w io.Writer) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("cannot store %T as %s: not unstructured", obj, c.gvk)
	}
	if u.GroupVersionKind() != c.gvk {
		u = u.DeepCopy()
		u.SetGroupVersionKind(c.gvk)
	}
	return unstructured.UnstructuredJSONScheme.Encode(u, w)
}

// Decode reads data into into (an *unstructured.Unstructured, or a new one when nil) in the
// storage version, pruned and defaulted.
func (c *storageCodec) Decode(data []byte, _ *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	u, ok := into.(*unstructured.Unstructured)
	if !ok || u == nil {
		u = &unstructured.Unstructured{}
	}
	u.Object = nil
	if _, _, err := unstructured.UnstructuredJSONScheme.Decode(data, nil, u); err != nil {
		return nil, nil, fmt.Errorf("cannot decode a stored %s: %w", c.gvk, err)
	}
	u.SetGroupVersionKind(c.gvk)
	if c.version != nil && c.version.Schema != nil {
		c.version.Schema.Prune(u.Object)
		c.version.Schema.Default(u.Object)
	}
	gvk := c.gvk
	return u, &gvk, nil
}

// Identifier names the codec for apimachinery's encoding caches.
func (c *storageCodec) Identifier() runtime.Identifier {
	return runtime.Identifier("customresource-storage:" + c.gvk.String())
}
