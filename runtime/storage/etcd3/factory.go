package etcd3

import (
	"fmt"
	"path"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/apigen-dev/apigen/runtime/metrics"
	jsonserializer "github.com/apigen-dev/apigen/runtime/serializer/json"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// StorageFactory is the registry.StorageFactory of a server (it matches that interface
// without importing it): every resource is stored in one etcd through Client under Prefix,
// as kube-apiserver's storage factory.
type StorageFactory struct {
	// Client is the etcd client every storage shares; the factory does not close it.
	Client *clientv3.Client
	// Prefix is the root of every key, e.g. "/registry" (--etcd-prefix).
	Prefix string
	// Metrics, when not nil, receives every storage's etcd request latencies
	// (etcd_request_duration_seconds).
	Metrics *metrics.Metrics
	// Leases tunes the sharing of etcd leases by objects written with a TTL (Events), as
	// kube-apiserver's --lease-reuse-duration-seconds; the zero value is kube's defaults.
	// Each storage has its own lease manager, as each of kube's etcd3 stores has.
	Leases LeaseConfig
	// Transformers, when not nil, returns the value.Transformer of each resource's values
	// (encryption at rest: --encryption-provider-config, encryption.Transformers'
	// TransformerFor), for typed resources and custom resources alike; nil stores values as
	// encoded.
	Transformers func(schema.GroupResource) value.Transformer
}

// transform sets st's transformer for resource from Transformers.
func (f *StorageFactory) transform(st storage.Interface, resource schema.GroupResource) {
	if f.Transformers != nil {
		SetTransformer(st, f.Transformers(resource))
	}
}

// NewStorage returns storage for resource under <Prefix>/<group>/<resource>. Objects are
// encoded as JSON in storageVersion and decoded, defaulted and converted to the group's
// internal version, so reads of objects written under an older storage version come back
// current. It fails when scheme does not know storageVersion.
func (f *StorageFactory) NewStorage(resource schema.GroupResource, storageVersion schema.GroupVersion,
	scheme *runtime.Scheme, newFunc func() runtime.Object) (storage.Interface, error) {
	if !scheme.IsVersionRegistered(storageVersion) {
		return nil, fmt.Errorf("cannot create storage for %s: storage version %s is not registered in the scheme", resource, storageVersion)
	}
	js := jsonserializer.NewSerializer(scheme, scheme, json.SerializerOptions{})
	internal := schema.GroupVersion{Group: resource.Group, Version: runtime.APIVersionInternal}
	codec := NewCodec(scheme, js, storageVersion, internal)
	prefix := path.Join("/", f.Prefix, resource.Group, resource.Resource)
	st := New(f.Client, codec, newFunc, prefix, resource)
	st.(*store).metrics = f.Metrics
	st.(*store).leases = newLeaseManager(f.Client, f.Leases)
	st.(*store).storageVersion = storageVersion
	f.transform(st, resource)
	return st, nil
}
