package install

import (
	"fmt"
	"path"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
)

// EtcdStorageFactory is a registry.StorageFactory over an etcd client: JSON in the storage
// version, keys under <Prefix>/<group>/<resource>.
type EtcdStorageFactory struct {
	Client *clientv3.Client
	Prefix string
}

var _ registry.StorageFactory = EtcdStorageFactory{}

// NewStorage returns etcd3 storage for resource.
func (f EtcdStorageFactory) NewStorage(resource schema.GroupResource, storageVersion schema.GroupVersion,
	scheme *runtime.Scheme, newFunc func() runtime.Object) (storage.Interface, error) {
	codecs := serializer.NewCodecFactory(scheme)
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		return nil, fmt.Errorf("cannot find a JSON serializer for %s", resource)
	}
	codec := codecs.CodecForVersions(info.Serializer, codecs.UniversalDecoder(), storageVersion, runtime.InternalGroupVersioner)
	return etcd3.New(f.Client, codec, newFunc, path.Join(f.Prefix, resource.Group, resource.Resource), resource), nil
}
