package registry

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// errFinalizersAdded aborts a delete that raced with an update adding finalizers.
var errFinalizersAdded = errors.New("finalizers were added during the delete")

// errDeleteNow and errAlreadyDeleting end the update a delete makes before it removes the
// object: the object is to be removed at once, or a graceful deletion is already under way.
var (
	errDeleteNow       = errors.New("delete now")
	errAlreadyDeleting = errors.New("already deleting")
)

// deleteAttempts bounds the retries of a delete racing with finalizer updates.
const deleteAttempts = 4

// Delete deletes the object name, as kube-apiserver's Store.Delete. opts is validated first
// (422 Invalid DeleteOptions, apimachinery's ValidateDeleteOptions); nil means a zero grace
// period, as for kube's in-process callers. opts.Preconditions (uid, resourceVersion) must
// hold (409 Conflict). The Admission chain (mutating, then validating plugins) sees the stored
// object first (DELETE), as kube's delete handler admits before it validates.
//
// The object is removed at once (returned with deleted=true) unless something keeps it, in
// which case it is updated and returned with deleted=false:
//   - propagationPolicy Orphan (or orphanDependents=true, or the kind's
//     DefaultGarbageCollectionPolicy OrphanDependents) adds the "orphan" finalizer,
//     Foreground the "foregroundDeletion" finalizer, Background removes both (see
//     gcFinalizers); a kind whose policy is Unsupported gets neither;
//   - an object with finalizers gets deletionTimestamp (now, once) and
//     deletionGracePeriodSeconds 0, and generation+1 (markAsDeleting);
//   - a kind that is deleted gracefully (GracefulDeleteStrategy) with a grace period above
//     zero gets deletionTimestamp now+grace and deletionGracePeriodSeconds (beforeDelete).
//
// With opts.DryRun nothing changes. Errors: 404 NotFound, 409 Conflict, 422 Invalid, the
// chain's refusal.
func (e *Store) Delete(ctx context.Context, name string, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	key, err := e.keyFor(ctx, name)
	if err != nil {
		return nil, false, err
	}
	if opts == nil {
		opts = metav1.NewDeleteOptions(0)
	} else {
		opts = opts.DeepCopy() // beforeDelete may default the grace period
	}
	if errs := metav1validation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, false, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	dryRun := isDryRun(opts.DryRun)
	for attempt := 1; ; attempt++ {
		preconditions := storagePreconditions(opts.Preconditions)
		existing, err := e.Get(ctx, name, &metav1.GetOptions{})
		if err != nil {
			return nil, false, err
		}
		if err := e.checkPreconditions(existing, opts.Preconditions); err != nil {
			return nil, false, err
		}
		// Mutating plugins see deletes too (a mutating webhook may refuse one), then the
		// validating ones.
		if err := e.Admission.Admit(ctx, e.admissionAttributes(ctx, admission.Delete, nil, existing, name, dryRun)); err != nil {
			return nil, false, err
		}
		out, now, err := e.prepareDelete(ctx, key, name, existing, opts, preconditions, dryRun)
		if err != nil || !now {
			return out, false, err
		}
		if dryRun {
			return out, true, nil
		}
		if out != existing && preconditions != nil && preconditions.ResourceVersion != nil {
			rv, err := resourceVersionOf(out) // the update moved the object on
			if err != nil {
				return nil, false, err
			}
			preconditions.ResourceVersion = &rv
		}
		removed, err := e.remove(ctx, key, preconditions, opts)
		if errors.Is(err, errFinalizersAdded) && attempt < deleteAttempts {
			continue
		}
		if storage.IsNotFound(err) && out != existing {
			return out, true, nil // another deleter of a gracefully deleted object came first
		}
		if err != nil {
			return nil, false, interpretError(err, e.DefaultQualifiedResource, name)
		}
		return removed, true, nil
	}
}

// remove deletes key from storage and returns the removed object, unless the stored object
// has finalizers by then other than the GC finalizers opts drops (errFinalizersAdded).
func (e *Store) remove(ctx context.Context, key string, preconditions *storage.Preconditions,
	opts *metav1.DeleteOptions) (runtime.Object, error) {
	out := e.NewFunc()
	err := e.Storage.Delete(ctx, key, out, preconditions, func(_ context.Context, cur runtime.Object) error {
		cm, err := accessor(cur)
		if err != nil {
			return err
		}
		if kept, _ := e.gcFinalizers(ctx, cm, opts); len(kept) > 0 {
			return errFinalizersAdded
		}
		return nil
	})
	return out, err
}

// resourceVersionOf returns obj's metadata.resourceVersion.
func resourceVersionOf(obj runtime.Object) (string, error) {
	m, err := accessor(obj)
	if err != nil {
		return "", err
	}
	return m.GetResourceVersion(), nil
}

// prepareDelete decides whether existing is removed now (now=true, out is the object to
// remove's last state) or kept by a graceful deletion or finalizers, writing what the delete
// changes (updateForDeletion) when there is anything to write.
func (e *Store) prepareDelete(ctx context.Context, key, name string, existing runtime.Object, opts *metav1.DeleteOptions,
	preconditions *storage.Preconditions, dryRun bool) (out runtime.Object, now bool, err error) {
	graceful, pending, err := e.beforeDelete(ctx, existing.DeepCopyObject(), opts)
	if err != nil {
		return nil, false, err
	}
	if pending {
		return existing, false, nil // finalizers cannot change once a graceful deletion is under way
	}
	m, err := accessor(existing)
	if err != nil {
		return nil, false, err
	}
	if _, changed := e.gcFinalizers(ctx, m, opts); !graceful && !changed && len(m.GetFinalizers()) == 0 {
		return existing, true, nil
	}
	return e.updateForDeletion(ctx, key, name, existing, opts, preconditions, dryRun)
}

// updateForDeletion writes the deletion state of the stored object, as kube's
// updateForGracefulDeletionAndFinalizers: the GC finalizers opts asks for, then either a
// graceful deletion's deletionTimestamp (beforeDelete) or, for an object finalizers keep,
// markAsDeleting. now is true when the object is to be removed at once instead: it has no
// finalizers and is not (or no longer, with a zero grace period) deleted gracefully.
func (e *Store) updateForDeletion(ctx context.Context, key, name string, existing runtime.Object, opts *metav1.DeleteOptions,
	preconditions *storage.Preconditions, dryRun bool) (out runtime.Object, now bool, err error) {
	var pendingFinalizers bool
	var lastGraceful int64
	tryUpdate := func(cur runtime.Object) (runtime.Object, error) {
		obj := cur.DeepCopyObject()
		graceful, pending, err := e.beforeDelete(ctx, obj, opts)
		if err != nil {
			return nil, err
		}
		if pending {
			return nil, errAlreadyDeleting
		}
		m, err := accessor(obj)
		if err != nil {
			return nil, err
		}
		if finalizers, changed := e.gcFinalizers(ctx, m, opts); changed {
			m.SetFinalizers(finalizers)
		}
		pendingFinalizers = len(m.GetFinalizers()) > 0
		switch {
		case !graceful && !pendingFinalizers:
			return nil, errDeleteNow
		case !graceful:
			markAsDeleting(m, metav1.Now().Rfc3339Copy()) // what storage keeps: whole seconds
		default:
			lastGraceful = *opts.GracePeriodSeconds
		}
		m.SetResourceVersion("")
		return obj, nil
	}
	out, err = e.writeDeletion(ctx, key, existing, preconditions, dryRun, tryUpdate)
	switch {
	case errors.Is(err, errDeleteNow):
		return existing, true, nil
	case errors.Is(err, errAlreadyDeleting):
		return existing, false, nil
	case err != nil:
		return nil, false, interpretError(err, e.DefaultQualifiedResource, name)
	case pendingFinalizers || lastGraceful > 0:
		return out, false, nil
	}
	return out, true, nil // deleted gracefully with a zero grace period: remove it now
}

// writeDeletion applies tryUpdate to the stored object (to existing, without writing, for a
// dry run; the result then keeps existing's resourceVersion).
func (e *Store) writeDeletion(ctx context.Context, key string, existing runtime.Object, preconditions *storage.Preconditions,
	dryRun bool, tryUpdate storage.UpdateFunc) (runtime.Object, error) {
	if !dryRun {
		out := e.NewFunc()
		err := e.Storage.GuaranteedUpdate(e.withTTL(ctx), key, out, false, preconditions, tryUpdate)
		return out, err
	}
	out, err := tryUpdate(existing)
	if err != nil {
		return nil, err
	}
	rv, err := resourceVersionOf(existing)
	if err != nil {
		return nil, err
	}
	m, err := accessor(out)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion(rv)
	return out, nil
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

// checkPreconditions is the 409 Conflict kube's rest.BeforeDelete returns for a failed
// delete precondition, naming the object's kind.
func (e *Store) checkPreconditions(obj runtime.Object, p *metav1.Preconditions) error {
	if p == nil {
		return nil
	}
	m, err := accessor(obj)
	if err != nil {
		return err
	}
	gk := e.kind(obj)
	qualified := schema.GroupResource{Group: gk.Group, Resource: gk.Kind}
	if p.UID != nil && *p.UID != m.GetUID() {
		return apierrors.NewConflict(qualified, m.GetName(), fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, m.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
		return apierrors.NewConflict(qualified, m.GetName(), fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, m.GetResourceVersion()))
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
