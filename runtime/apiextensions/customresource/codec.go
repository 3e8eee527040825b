package customresource

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/apiextensions/conversion"
)

// storageCodec is the etcd codec of one custom resource, as apiextensions-apiserver's storage
// codec: objects are stored as JSON with the storage version's apiVersion; read back, an
// object stored in another version (before the storage version changed) is converted to the
// storage version (by the conversion webhook, or, for conversion strategy None, by taking
// that apiVersion), then pruned and defaulted with the storage version's schema, so a
// default added to the schema later shows on objects stored before.
type storageCodec struct {
	gvk schema.GroupVersionKind
	// version is the storage version's definition; nil when it is not served (no schema).
	version *Version
	// converter is the conversion webhook, nil for conversion strategy None.
	converter *conversion.Webhook
}

var _ runtime.Codec = (*storageCodec)(nil)

// Encode writes obj, an *unstructured.Unstructured, as JSON in the storage version.
func (c *storageCodec) Encode(obj runtime.Object, w io.Writer) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("cannot store %T as %s: not unstructured", obj, c.gvk)
	}
	if u.GroupVersionKind() != c.gvk {
		converted, err := c.convert(u)
		if err != nil {
			return err
		}
		u = converted
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
	if u.GroupVersionKind() != c.gvk {
		converted, err := c.convert(u)
		if err != nil {
			return nil, nil, err
		}
		u.Object = converted.Object
	}
	if c.version != nil && c.version.Schema != nil {
		c.version.Schema.Prune(u.Object)
		c.version.Schema.Default(u.Object)
	}
	gvk := c.gvk
	return u, &gvk, nil
}

// convert returns a copy of u in the storage version: converted by the webhook when u is
// of the resource's group in another version, else relabelled.
func (c *storageCodec) convert(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if gvk := u.GroupVersionKind(); c.converter != nil && gvk.Group == c.gvk.Group && gvk.Version != "" && gvk.Version != c.gvk.Version {
		out, err := c.converter.Convert(u, c.gvk.GroupVersion())
		if err != nil {
			return nil, err
		}
		return out.(*unstructured.Unstructured), nil
	}
	out := u.DeepCopy()
	out.SetGroupVersionKind(c.gvk)
	return out, nil
}

// Identifier names the codec for apimachinery's encoding caches.
func (c *storageCodec) Identifier() runtime.Identifier {
	return runtime.Identifier("customresource-storage:" + c.gvk.String())
}
