// Package namespacelifecycle is kube-apiserver's NamespaceLifecycle admission plugin
// (plugin/pkg/admission/namespace/lifecycle), on by default in every server built with
// runtime/app:
//
//   - creating or updating a namespaced object in a namespace that does not exist is refused
//     with 404 NotFound `namespaces "x" not found`;
//   - creating one in a namespace being deleted (status.phase Terminating) is refused with
//     403 Forbidden `... unable to create new content in namespace x because it is being
//     terminated`, with a StatusCause of type NamespaceTerminating on metadata.namespace;
//   - deleting default, kube-system or kube-public is refused with 403 Forbidden
//     `namespaces "default" is forbidden: this namespace may not be deleted`;
//   - namespaces themselves, cluster-scoped objects and deletes of other objects are not
//     checked.
//
// As kube's plugin reads a namespace informer, Plugin.Run keeps a cache of every namespace's
// phase fed by a watch; a namespace the cache does not know (or one being deleted in the last
// 30 s, or any before the cache is synced) is read from storage, so a namespace created just
// before its content is found, and a create right after a namespace's DELETE sees it
// Terminating.
package namespacelifecycle
