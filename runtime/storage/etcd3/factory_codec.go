package etcd3

import (
	"fmt"
	"path"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// NewStorageWithCodec returns storage for resource under <Prefix>/<group>/<resource>, as
// NewStorage, for objects no scheme knows: codec encodes them for etcd and decodes (and
// defaults) them into objects from newFunc. runtime/apiextensions/customresource stores the
// unstructured objects of custom resources with it, as kube-apiserver keys them under
// /registry/<group>/<plural>. Errors: codec or newFunc is nil.
func (f *StorageFactory) NewStorageWithCodec(resource schema.GroupResource, codec runtime.Codec,
	newFunc func() runtime.Object) (storage.Interface, error) {
	if codec == nil || newFunc == nil {
		return nil, fmt.Errorf("cannot create storage for %s without a codec and an object constructor", resource)
	}
	prefix := path.Join("/", f.Prefix, resource.Group, resource.Resource)
	st := New(f.Client, codec, newFunc, prefix, resource)
	st.(*store).metrics = f.Metrics
	f.transform(st, resource)
	return st, nil
}
