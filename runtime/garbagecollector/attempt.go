package garbagecollector

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
)

// errEnqueuedVirtualDelete: the item does not exist; a virtual delete event will remove it.
var errEnqueuedVirtualDelete = errors.New("enqueued virtual delete event")

// errNamespacedOwnerOfClusterScopedObject: a cluster-scoped object names a namespaced owner,
// which cannot resolve; the item is neither deleted nor retried.
var errNamespacedOwnerOfClusterScopedObject = errors.New("cluster-scoped objects cannot refer to namespaced owners")

// processAttemptToDelete processes item, got from attemptToDelete, as kube's
// processAttemptToDeleteWorker: forgotten when done, requeued with backoff on failure.
func (c *collector) processAttemptToDelete(ctx context.Context, item *node) {
	c.workerLock.RLock()
	defer c.workerLock.RUnlock()
	defer c.attemptToDelete.Done(item)
	if c.attemptToDeleteWorker(ctx, item) {
		c.attemptToDelete.AddRateLimited(item)
		c.deleteRetries.retrying(item)
		return
	}
	c.attemptToDelete.Forget(item)
	c.deleteRetries.forget(item)
}

// attemptToDeleteWorker reports whether n is to be retried, as kube's attemptToDeleteWorker.
func (c *collector) attemptToDeleteWorker(ctx context.Context, n *node) (requeue bool) {
	if !n.isObserved() {
		current, ok := c.uidToNode.Read(n.identity.UID)
		if !ok || current.isObserved() {
			return false // deleted meanwhile, or observed: the observed node is processed instead
		}
	}
	err := c.attemptToDeleteItem(ctx, n)
	switch {
	case errors.Is(err, errEnqueuedVirtualDelete), errors.Is(err, errNamespacedOwnerOfClusterScopedObject):
		return false
	case err != nil:
		var mapping *restMappingError
		level := slog.LevelWarn
		if errors.As(err, &mapping) || apierrors.IsNotFound(err) || apierrors.IsConflict(err) || ctx.Err() != nil {
			level = slog.LevelDebug // transient: the kind is not served yet, or the object changed meanwhile
		}
		c.log.Log(ctx, level, "garbage collector: cannot process an object, retrying", "object", n.identity.String(), "err", err)
		return true
	}
	// A virtual node not observed yet is looked at again: a node added and removed while a
	// watch was down would stay in the graph otherwise.
	return !n.isObserved()
}

// attemptToDeleteItem looks the object up and deletes it when all its owners are gone
// (background, or as its own GC finalizer says), deletes it in the foreground when an owner
// waits for its dependents and it has dependents itself, removes its references to owners
// that are gone or waiting while others remain, and finishes the foreground deletion of an
// object whose blocking dependents are gone, as kube's attemptToDeleteItem. A missing object
// (or one recreated with another uid) becomes a virtual delete event.
func (c *collector) attemptToDeleteItem(ctx context.Context, item *node) error {
	if item.isBeingDeleted() && !item.isDeletingDependents() {
		return nil // deletion is a one-way trip; its dependents are looked at once it is gone
	}
	latest, err := c.getObject(ctx, item.identity)
	switch {
	case apierrors.IsNotFound(err):
		c.enqueueVirtualDeleteEvent(item.identity)
		return errEnqueuedVirtualDelete
	case err != nil:
		return err
	}
	if latest.GetUID() != item.identity.UID {
		c.enqueueVirtualDeleteEvent(item.identity)
		return errEnqueuedVirtualDelete
	}
	if item.isDeletingDependents() {
		return c.processDeletingDependentsItem(ctx, item)
	}
	refs := latest.GetOwnerReferences()
	if len(refs) == 0 {
		return nil
	}
	solid, dangling, waiting, err := c.classifyReferences(ctx, item, refs)
	if err != nil {
		return err
	}
	return c.collect(ctx, item, latest, solid, dangling, waiting)
}

// collect acts on item, whose owners are solid, dangling or waiting for their dependents'
// deletion, as the end of kube's attemptToDeleteItem.
func (c *collector) collect(ctx context.Context, item *node, latest metav1.Object, solid, dangling, waiting []metav1.OwnerReference) error {
	switch {
	case len(solid) != 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			return nil
		}
		return c.removeOwnerReferences(ctx, item, append(uidsOf(dangling), uidsOf(waiting)...))
	case len(waiting) != 0 && item.dependentsLength() != 0:
		for _, dep := range item.getDependents() {
			if dep.isDeletingDependents() {
				// A possible cycle: stop blocking the owners before deleting in the foreground.
				if err := c.unblockOwnerReferences(ctx, item); err != nil {
					return err
				}
				break
			}
		}
		foreground := metav1.DeletePropagationForeground
		return c.deleteObject(ctx, item.identity, &foreground)
	}
	policy := metav1.DeletePropagationBackground
	switch {
	case hasFinalizer(latest, metav1.FinalizerOrphanDependents):
		policy = metav1.DeletePropagationOrphan
	case hasFinalizer(latest, metav1.FinalizerDeleteDependents):
		policy = metav1.DeletePropagationForeground
	}
	c.log.Debug("garbage collector: deleting an object whose owners are gone", "object", item.identity.String(), "propagationPolicy", policy)
	return c.deleteObject(ctx, item.identity, &policy)
}

// processDeletingDependentsItem finishes the foreground deletion of item once no dependent
// blocks it (removing the foregroundDeletion finalizer), and otherwise queues its blocking
// dependents.
func (c *collector) processDeletingDependentsItem(ctx context.Context, item *node) error {
	blocking := item.blockingDependents()
	if len(blocking) == 0 {
		return c.removeFinalizer(ctx, item, metav1.FinalizerDeleteDependents)
	}
	for _, dep := range blocking {
		if !dep.isDeletingDependents() {
			c.attemptToDelete.Add(dep)
		}
	}
	return nil
}

// classifyReferences sorts refs into solid (the owner exists and is not deleting its
// dependents in the foreground), dangling (it does not exist) and waiting (it exists, being
// deleted in the foreground), as kube's classifyReferences.
func (c *collector) classifyReferences(ctx context.Context, item *node, refs []metav1.OwnerReference) (
	solid, dangling, waiting []metav1.OwnerReference, err error) {
	for _, ref := range refs {
		isDangling, owner, err := c.isDangling(ctx, ref, item)
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case isDangling:
			dangling = append(dangling, ref)
		case owner.GetDeletionTimestamp() != nil && hasFinalizer(owner, metav1.FinalizerDeleteDependents):
			waiting = append(waiting, ref)
		default:
			solid = append(solid, ref)
		}
	}
	return solid, dangling, waiting, nil
}

// isDangling reports whether ref names an owner that does not exist (or exists with another
// uid), with a live lookup unless the absent-owner cache knows, as kube's isDangling; when it
// exists, owner is its latest metadata. A cluster-scoped item naming a namespaced owner is
// errNamespacedOwnerOfClusterScopedObject, reported as an OwnerRefInvalidNamespace event: it
// is never collected.
func (c *collector) isDangling(ctx context.Context, ref metav1.OwnerReference, item *node) (bool, metav1.Object, error) {
	key := ownerCoordinates(ref, "")
	if c.absentOwnerCache.Has(key) {
		return true, nil, nil
	}
	key.Namespace = item.identity.Namespace
	if c.absentOwnerCache.Has(key) {
		return true, nil, nil
	}
	r, err := c.mapping(ref.APIVersion, ref.Kind)
	if err != nil {
		return false, nil, err
	}
	if !r.Namespaced {
		key.Namespace = ""
	}
	if item.identity.Namespace == "" && r.Namespaced {
		c.reportInvalidNamespaceOwnerRef(item, ref.UID)
		return false, nil, errNamespacedOwnerOfClusterScopedObject
	}
	owner, err := c.get(ctx, r, item.identity.Namespace, ref.Name)
	switch {
	case apierrors.IsNotFound(err):
		c.absentOwnerCache.Add(key)
		return true, nil, nil
	case err != nil:
		return false, nil, err
	case owner.GetUID() != ref.UID:
		c.absentOwnerCache.Add(key) // recreated under the same name: not this dependent's owner
		return true, nil, nil
	}
	return false, owner, nil
}

// uidsOf returns the uids refs name.
func uidsOf(refs []metav1.OwnerReference) []types.UID {
	out := make([]types.UID, 0, len(refs))
	for _, ref := range refs {
		out = append(out, ref.UID)
	}
	return out
}

// processAttemptToOrphan removes one owner, being deleted with the orphan finalizer, from its
// dependents' ownerReferences, then removes the finalizer (so the owner goes), as kube's
// attemptToOrphanWorker; a failure requeues it with backoff. owner was got from
// attemptToOrphan.
func (c *collector) processAttemptToOrphan(ctx context.Context, owner *node) {
	c.workerLock.RLock()
	defer c.workerLock.RUnlock()
	defer c.attemptToOrphan.Done(owner)
	err := c.orphanDependents(ctx, owner.identity, owner.getDependents())
	if err == nil {
		err = c.removeFinalizer(ctx, owner, metav1.FinalizerOrphanDependents)
	}
	if err != nil {
		if ctx.Err() == nil {
			c.log.Warn("garbage collector: cannot orphan the dependents", "owner", owner.identity.String(), "err", err)
		}
		c.attemptToOrphan.AddRateLimited(owner)
		c.orphanRetries.retrying(owner)
		return
	}
	c.attemptToOrphan.Forget(owner)
	c.orphanRetries.forget(owner)
}

// runWorkers processes the items of q, at most n at a time, each on a goroutine started for
// it, until q shuts down and the items under way are done: kube's n workers each waiting on
// the queue, without n goroutines (and their stacks) waiting while there is nothing to do.
// An item is taken from q only when fewer than n are under way, so the rest wait in q as
// they did for n busy workers.
func runWorkers[T comparable](q workqueue.TypedRateLimitingInterface[T], n int, process func(T)) {
	slots := make(chan struct{}, n)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		slots <- struct{}{}
		item, quit := q.Get()
		if quit {
			return
		}
		wg.Go(func() {
			defer func() { <-slots }()
			process(item)
		})
	}
}

// orphanParallelism bounds the dependents orphanDependents updates at once.
const orphanParallelism = 16

// orphanDependents removes owner from every dependent's ownerReferences (a dependent gone
// already is fine), several at a time, as kube's orphanDependents.
func (c *collector) orphanDependents(ctx context.Context, owner objectReference, dependents []*node) error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		sem  = make(chan struct{}, orphanParallelism)
	)
	for _, dep := range dependents {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			err := c.removeOwnerReferences(ctx, dep, []types.UID{owner.UID})
			if err != nil && !apierrors.IsNotFound(err) {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
