package storage

import "k8s.io/apimachinery/pkg/runtime/schema"

// Versioned is implemented by a storage.Interface that encodes every object it writes in one
// group version, its storage version (etcd3's store, and the watch cache and conversions in
// front of one, which report their storage's). The endpoints publish it in discovery as the
// resource's storageVersionHash, as kube-apiserver's rest.StorageVersionProvider.
type Versioned interface {
	// StorageVersion returns the group version objects are encoded in ("db.example.com/v1");
	// the zero GroupVersion when it is not known (a storage made with a codec of its own).
	StorageVersion() schema.GroupVersion
}

// StorageVersionOf returns st's storage version (Versioned), or the zero GroupVersion when
// st does not report one.
func StorageVersionOf(st Interface) schema.GroupVersion {
	if v, ok := st.(Versioned); ok {
		return v.StorageVersion()
	}
	return schema.GroupVersion{}
}
