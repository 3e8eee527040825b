// Package garbagecollector is kube-controller-manager's garbage collector
// (pkg/controller/garbagecollector) running inside an apigen server: it deletes the objects
// whose owners (metadata.ownerReferences) are gone, and carries out the foreground and
// orphan deletions that runtime/registry's Store starts with the "foregroundDeletion" and
// "orphan" finalizers.
//
// It follows kube's design and names. A monitor per resource (an informer of the objects'
// metadata, as kube's metadata-only informers, in one goroutine: see monitor) feeds the graph
// builder, which keeps the dependency graph (uidToNode: one node per object,
// and a "virtual" node per owner named but not yet observed, verified by a live lookup) and
// queues work:
//   - attemptToDelete: an object whose owners may all be gone is looked up and deleted
//     (background, or as its own GC finalizer says) when every ownerReference is dangling (the
//     owner is missing, or exists with another uid: an owner recreated under the same name
//     owns nothing of the old one's); references to owners that are gone while others remain
//     are removed. An owner being deleted in the foreground has its dependents deleted
//     (those with dependents of their own in the foreground too), and loses its
//     foregroundDeletion finalizer, and so goes, once no dependent with
//     blockOwnerDeletion=true is left.
//   - attemptToOrphan: an owner being deleted with the orphan finalizer is removed from its
//     dependents' ownerReferences, then loses the finalizer.
//
// Scopes are checked as kube checks them: a namespaced owner is looked for in the
// dependent's namespace only; a dependent naming a namespaced owner in another namespace, or a
// cluster-scoped dependent naming a namespaced owner, is reported as an
// OwnerRefInvalidNamespace Warning event (through Config.Events) and is never deleted through
// that reference.
//
// Unlike kube's, which talks to the API server over HTTP, it reads and writes through each
// resource's own storage in process (Storage: registry.Store and what wraps it): no loopback
// credentials, no serialization, the watch cache when a storage has one, and the same
// admission and validation a client's request gets. Resources come from Sources (typed groups
// with APIGroupResources; custom resources from the extensions server), asked again every
// Config.ResyncPeriod and at once on Resync, so a new CustomResourceDefinition is watched
// without a restart. Aggregated APIs (served by other servers) are not watched: their own
// servers, or the cluster's kube-controller-manager, collect them.
//
// Run runs it until its context ends and may be called again afterwards with a fresh graph,
// so that a server with replicas can run it under a leader-election lease. Its series are
// kube-controller-manager's: workqueue_* for the queues garbage_collector_graph_changes,
// garbage_collector_attempt_to_delete and garbage_collector_attempt_to_orphan, and
// garbagecollector_controller_* (runtime/metrics).
package garbagecollector
