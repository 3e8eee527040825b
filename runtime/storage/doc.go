// Package storage defines storage.Interface, the contract between apigen's registry.Store
// and a key-value backend, with its options and error classes. It mirrors
// k8s.io/apiserver/pkg/storage.Interface in shape and semantics (DESIGN.md section 6);
// storage/etcd3 implements it on etcd's clientv3 and storagetest holds the conformance
// suite every implementation runs. A write may carry a time to live (WithTTL, as the TTL
// argument of kube's Create and GuaranteedUpdate; etcd3 attaches shared leases), and
// NewConverted serves one resource's objects as another type's (events.k8s.io Events over
// the core group's, as kube-apiserver's cohabitating resources).
package storage
