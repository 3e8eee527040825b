package garbagecollector

import (
	"context"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apigen-dev/apigen/runtime/request"
)

// mapping resolves apiVersion and kind to a watched resource.
func (c *collector) mapping(apiVersion, kind string) (*Resource, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.mapper.mapping(apiVersion, kind)
}

// scoped returns ctx in namespace for a namespaced resource, in none otherwise.
func scoped(ctx context.Context, r *Resource, namespace string) context.Context {
	if !r.Namespaced {
		namespace = ""
	}
	return request.WithNamespace(ctx, namespace)
}

// get reads the latest state of name (in namespace, for a namespaced resource) from r's
// storage. Errors are the storage's apierrors.
func (c *collector) get(ctx context.Context, r *Resource, namespace, name string) (metav1.Object, error) {
	obj, err := r.Storage.Get(scoped(ctx, r, namespace), name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return meta.Accessor(obj)
}

// getObject reads the latest state of the object id names.
func (c *collector) getObject(ctx context.Context, id objectReference) (metav1.Object, error) {
	r, err := c.mapping(id.APIVersion, id.Kind)
	if err != nil {
		return nil, err
	}
	return c.get(ctx, r, id.Namespace, id.Name)
}

// deleteObject deletes the object id names, only if it still has id's uid, with policy, as
// kube's deleteObject.
func (c *collector) deleteObject(ctx context.Context, id objectReference, policy *metav1.DeletionPropagation) error {
	r, err := c.mapping(id.APIVersion, id.Kind)
	if err != nil {
		return err
	}
	uid := id.UID
	_, _, err = r.Storage.Delete(scoped(ctx, r, id.Namespace), id.Name,
		&metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: policy})
	return err
}

// updateMetadata changes the metadata of the object id names with change, only if it still
// has id's uid (404 NotFound otherwise: that object is gone), through its storage's Update: atomic with respect to any
// other writer (the storage retries the read-modify-write on a race), as kube's garbage
// collector patches with a uid precondition.
func (c *collector) updateMetadata(ctx context.Context, id objectReference, change func(metav1.Object)) error {
	r, err := c.mapping(id.APIVersion, id.Kind)
	if err != nil {
		return err
	}
	_, _, err = r.Storage.Update(scoped(ctx, r, id.Namespace), id.Name, metadataChange{id: id, resource: r, change: change},
		false, &metav1.UpdateOptions{})
	return err
}

// metadataChange is the rest.UpdatedObjectInfo of updateMetadata.
type metadataChange struct {
	id       objectReference
	resource *Resource
	change   func(metav1.Object)
}

// UpdatedObject applies the change to old, the stored object (a copy the Store gives).
func (u metadataChange) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	gr := u.resource.GroupResource()
	if old == nil {
		return nil, apierrors.NewNotFound(gr, u.id.Name)
	}
	m, err := meta.Accessor(old)
	if err != nil {
		return nil, err
	}
	if m.GetUID() != u.id.UID {
		return nil, apierrors.NewNotFound(gr, u.id.Name) // deleted, and created again under the name
	}
	u.change(m)
	return old, nil
}

// removeOwnerReferences removes the ownerReferences to owners from the object n names.
func (c *collector) removeOwnerReferences(ctx context.Context, n *node, owners []types.UID) error {
	return c.updateMetadata(ctx, n.identity, func(m metav1.Object) {
		refs := slices.DeleteFunc(slices.Clone(m.GetOwnerReferences()), func(ref metav1.OwnerReference) bool {
			return slices.Contains(owners, ref.UID)
		})
		if len(refs) == 0 {
			refs = nil // the field goes, as kube's patches remove it
		}
		m.SetOwnerReferences(refs)
	})
}

// unblockOwnerReferences sets blockOwnerDeletion=false on every reference of the object n
// names that had it true.
func (c *collector) unblockOwnerReferences(ctx context.Context, n *node) error {
	return c.updateMetadata(ctx, n.identity, func(m metav1.Object) {
		refs := slices.Clone(m.GetOwnerReferences())
		no := false
		for i := range refs {
			if refs[i].BlockOwnerDeletion != nil && *refs[i].BlockOwnerDeletion {
				refs[i].BlockOwnerDeletion = &no
			}
		}
		m.SetOwnerReferences(refs)
	})
}

// removeFinalizer removes finalizer from the object n names; when it was the last one of an
// object being deleted, the object goes. An object already gone is fine.
func (c *collector) removeFinalizer(ctx context.Context, n *node, finalizer string) error {
	err := c.updateMetadata(ctx, n.identity, func(m metav1.Object) {
		finalizers := slices.DeleteFunc(slices.Clone(m.GetFinalizers()), func(f string) bool { return f == finalizer })
		if len(finalizers) == 0 {
			finalizers = nil
		}
		m.SetFinalizers(finalizers)
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// enqueueVirtualDeleteEvent queues the finding that the object id names does not exist.
func (c *collector) enqueueVirtualDeleteEvent(id objectReference) {
	obj := &objectMetadata{namespace: id.Namespace, uid: id.UID, name: id.Name}
	c.graphChanges.Add(&event{virtual: true, eventType: deleteEvent, obj: obj, apiVersion: id.APIVersion, kind: id.Kind})
}
