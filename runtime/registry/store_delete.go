package registry

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// errFinalizersAdded aborts a delete that raced with an update adding finalizers.
var errFinalizersAdded = errors.New("finalizers were added during the delete")

// deleteAttempts bounds the retries of a delete racing with finalizer updates.
const deleteAttempts = 4

// Delete removes the object name, as kube-apiserver's Store.Delete for custom resources:
// opts.Preconditions (uid, resourceVersion) must hold (409 Conflict otherwise). An object with
// finalizers is not removed: it gets deletionTimestamp (once) and is returned with
// deleted=false; otherwise it is removed and returned with deleted=true. With opts.DryRun
// nothing changes. The Admission chain (mutating, then validating plugins) sees the stored
// object first (DELETE).
// Errors: 404 NotFound, 409 Conflict, the chain's refusal.
func (e *Store) Delete(ctx context.Context, name string, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	key, err := e.keyFor(ctx, name)
	if err != nil {
		return nil, false, err
	}
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	preconditions := storagePreconditions(opts.Preconditions)
	for attempt := 1; ; attempt++ {
		existing, err := e.Get(ctx, name, &metav1.GetOptions{})
		if err != nil {
			return nil, false, err
		}
		m, err := accessor(existing)
		if err != nil {
			return nil, false, err
		}
		if err := e.checkPreconditions(name, preconditions, m); err != nil {
			return nil, false, err
		}
		// Mutating plugins see deletes too (a mutating webhook may refuse one), as kube's
		// delete handler admits before it validates.
		if err := e.Admission.Admit(ctx, e.admissionAttributes(ctx, admission.Delete, nil, existing, name, isDryRun(opts.DryRun))); err != nil {
			return nil, false, err
		}
		if len(m.GetFinalizers()) > 0 {
			return e.markDeleting(ctx, key, name, existing, preconditions, isDryRun(opts.DryRun))
		}
		if isDryRun(opts.DryRun) {
			return existing, true, nil
		}
		out := e.NewFunc()
		err = e.Storage.Delete(ctx, key, out, preconditions, func(_ context.Context, cur runtime.Object) error {
			if cm, err := meta.Accessor(cur); err == nil && len(cm.GetFinalizers()) > 0 {
				return errFinalizersAdded
			}
			return nil
		})
		if errors.Is(err, errFinalizersAdded) && attempt < deleteAttempts {
			continue
		}
		if err != nil {
			return nil, false, interpretError(err, e.DefaultQualifiedResource, name)
		}
		return out, true, nil
	}
}

// markDeleting sets deletionTimestamp on an object that finalizers keep, unless it is
// already set, and returns the object.
func (e *Store) markDeleting(ctx context.Context, key, name string, existing runtime.Object,
	preconditions *storage.Preconditions, dryRun bool) (runtime.Object, bool, error) {
	mark := func(cur runtime.Object) (runtime.Object, error) {
		obj := cur.DeepCopyObject()
		m, err := accessor(obj)
		if err != nil {
			return nil, err
		}
		if m.GetDeletionTimestamp() == nil {
			now := metav1.Now().Rfc3339Copy() // what storage keeps: whole seconds
			var zero int64
			m.SetDeletionTimestamp(&now)
			m.SetDeletionGracePeriodSeconds(&zero)
		}
		m.SetResourceVersion("")
		return obj, nil
	}
	if m, err := accessor(existing); err != nil || m.GetDeletionTimestamp() != nil {
		return existing, false, err
	}
	if dryRun {
		obj, err := mark(existing)
		return obj, false, err
	}
	out := e.NewFunc()
	if err := e.Storage.GuaranteedUpdate(ctx, key, out, false, preconditions, mark); err != nil {
		return nil, false, interpretError(err, e.DefaultQualifiedResource, name)
	}
	out, err := e.finalizeIfDone(ctx, key, name, out)
	if err != nil {
		return nil, false, err
	}
	m, err := accessor(out)
	return out, err == nil && len(m.GetFinalizers()) == 0, err
}

// finalizeIfDone removes obj, just written, when it is being deleted, has no finalizers
// left and ShouldDeleteDuringUpdate agrees, and returns the removed object; otherwise it
// returns obj.
func (e *Store) finalizeIfDone(ctx context.Context, key, name string, obj runtime.Object) (runtime.Object, error) {
	m, err := accessor(obj)
	if err != nil || m.GetDeletionTimestamp() == nil || len(m.GetFinalizers()) > 0 {
		return obj, err
	}
	if e.ShouldDeleteDuringUpdate != nil && !e.ShouldDeleteDuringUpdate(obj) {
		return obj, nil
	}
	uid, rv := m.GetUID(), m.GetResourceVersion()
	out := e.NewFunc()
	err = e.Storage.Delete(ctx, key, out, &storage.Preconditions{UID: &uid, ResourceVersion: &rv}, nil)
	if storage.IsNotFound(err) || storage.IsConflict(err) {
		return obj, nil // someone else deleted or changed it first
	}
	if err != nil {
		return nil, interpretError(err, e.DefaultQualifiedResource, name)
	}
	return out, nil
}

// checkPreconditions is the 409 Conflict kube returns for a failed delete precondition.
func (e *Store) checkPreconditions(name string, p *storage.Preconditions, m metav1.Object) error {
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != m.GetUID() {
		return apierrors.NewConflict(e.DefaultQualifiedResource, name,
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, m.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
		return apierrors.NewConflict(e.DefaultQualifiedResource, name,
			fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v",
				*p.ResourceVersion, m.GetResourceVersion()))
	}
	return nil
}

// storagePreconditions converts metav1.Preconditions; nil stays nil.
func storagePreconditions(p *metav1.Preconditions) *storage.Preconditions {
	if p == nil {
		return nil
	}
	return &storage.Preconditions{UID: p.UID, ResourceVersion: p.ResourceVersion}
}

// DeleteCollection deletes every object List(listOpts) returns, each as Delete with opts
// (objects already gone are skipped), and returns the internal list of what it deleted or
// marked for deletion.
func (e *Store) DeleteCollection(ctx context.Context, opts *metav1.DeleteOptions,
	listOpts *metainternalversion.ListOptions) (runtime.Object, error) {
	listObj, err := e.List(ctx, listOpts)
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(listObj)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("cannot read the list: %w", err))
	}
	deleted := make([]runtime.Object, 0, len(items))
	for _, item := range items {
		m, err := accessor(item)
		if err != nil {
			return nil, err
		}
		obj, _, err := e.Delete(request.WithNamespace(ctx, m.GetNamespace()), m.GetName(), opts)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		deleted = append(deleted, obj)
	}
	out := e.NewListFunc()
	if err := meta.SetList(out, deleted); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("cannot build the list of deleted objects: %w", err))
	}
	return out, nil
}
