// Package namespace deletes a terminating namespace's content, as kube-controller-manager's
// namespace controller (pkg/controller/namespace/deletion): once a Namespace has a
// deletionTimestamp, every namespaced object in it is deleted through the servers that serve
// it (ContentDeleter), then the "kubernetes" finalizer is removed from spec.finalizers and the
// namespace itself goes.
package namespace
