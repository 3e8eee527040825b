package registry

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/validation/cel"
)

// Update writes the object objInfo computes from the stored one, as kube-apiserver's
// Store.Update over GuaranteedUpdate. A resourceVersion in the new object that differs from
// the stored one is a 409 Conflict ("... the object has been modified; please apply your
// changes to the latest version and try again"); an empty one updates unconditionally,
// retrying on races. uid, creationTimestamp and deletionTimestamp are kept; then
// Strategy.PrepareForUpdate and validation run (422). A missing object is a 404 unless
// forceAllowCreate, which creates it (created is then true). An update that removes the last
// finalizer of an object being deleted deletes it. With opts.DryRun nothing is written.
func (e *Store) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, forceAllowCreate bool,
	opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return e.update(ctx, e.Strategy, name, objInfo, forceAllowCreate, opts)
}

// update is Update with the strategy of the resource or of a subresource.
func (e *Store) update(ctx context.Context, strategy Strategy, name string, objInfo rest.UpdatedObjectInfo,
	forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	key, err := e.keyFor(ctx, name)
	if err != nil {
		return nil, false, err
	}
	if opts == nil {
		opts = &metav1.UpdateOptions{}
	}
	creating := false
	tryUpdate := func(existing runtime.Object) (runtime.Object, error) {
		old, err := accessor(existing)
		if err != nil {
			return nil, err
		}
		creating = old.GetResourceVersion() == ""
		if creating {
			return e.updateCreate(ctx, name, objInfo, forceAllowCreate, isDryRun(opts.DryRun))
		}
		return e.updateExisting(ctx, strategy, name, objInfo, existing, isDryRun(opts.DryRun))
	}
	out := e.NewFunc()
	if isDryRun(opts.DryRun) {
		out, err = e.dryRunUpdate(ctx, key, tryUpdate)
	} else {
		err = e.Storage.GuaranteedUpdate(e.withTTL(ctx), key, out, true, nil, tryUpdate)
	}
	if err != nil {
		return nil, false, interpretError(err, e.DefaultQualifiedResource, name)
	}
	if !creating && !isDryRun(opts.DryRun) {
		out, err = e.finalizeIfDone(ctx, key, name, out)
	}
	return out, creating, err
}

// OldObjectPreserver is implemented by a rest.UpdatedObjectInfo whose UpdatedObject never
// changes the old object it is given (it only reads it, or ignores it, as a PUT's body
// does). Update then passes the stored object itself, as kube-apiserver's Store.Update
// always does, instead of a copy: updateExisting still needs that object unchanged as the
// old object of PrepareForUpdate and validation.
type OldObjectPreserver interface {
	// PreservesOldObject reports whether UpdatedObject leaves its old object unchanged.
	PreservesOldObject() bool
}

// updateCreate computes the object an update creates, or 404 when it may not.
func (e *Store) updateCreate(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, forceAllowCreate, dryRun bool) (runtime.Object, error) {
	if !forceAllowCreate && !e.AllowCreateOnUpdate {
		return nil, apierrors.NewNotFound(e.DefaultQualifiedResource, name)
	}
	obj, err := objInfo.UpdatedObject(ctx, nil)
	if err != nil {
		return nil, err
	}
	if err := e.mutate(ctx, e.admissionAttributes(ctx, admission.Create, obj, nil, name, dryRun)); err != nil {
		return nil, err
	}
	m, err := e.beforeCreate(ctx, obj)
	if err != nil {
		return nil, err
	}
	if err := e.checkName(name, m); err != nil {
		return nil, err
	}
	if err := e.validateCreate(ctx, obj, m); err != nil {
		return nil, err
	}
	if err := e.Admission.Validate(ctx, e.admissionAttributes(ctx, admission.Create, obj, nil, name, dryRun)); err != nil {
		return nil, err
	}
	return obj, nil
}

// updateExisting computes the new state of existing, as kube's rest.BeforeUpdate, with the
// Admission chain's mutating plugins before PrepareForUpdate and its validating ones after
// validation.
func (e *Store) updateExisting(ctx context.Context, strategy Strategy, name string, objInfo rest.UpdatedObjectInfo,
	existing runtime.Object, dryRun bool) (runtime.Object, error) {
	old, err := accessor(existing)
	if err != nil {
		return nil, err
	}
	given := existing
	if p, ok := objInfo.(OldObjectPreserver); !ok || !p.PreservesOldObject() {
		given = existing.DeepCopyObject() // existing is validation's old object: keep it intact
	}
	obj, err := objInfo.UpdatedObject(ctx, given)
	if err != nil {
		return nil, err
	}
	m, err := accessor(obj)
	if err != nil {
		return nil, err
	}
	if err := e.checkName(name, m); err != nil {
		return nil, err
	}
	switch rv := m.GetResourceVersion(); rv {
	case "":
		m.SetResourceVersion(old.GetResourceVersion()) // unconditional: update whatever is stored
	case old.GetResourceVersion():
	default:
		return nil, apierrors.NewConflict(e.DefaultQualifiedResource, name, errors.New(OptimisticLockErrorMsg))
	}
	m.SetNamespace(old.GetNamespace())
	if m.GetUID() == "" {
		m.SetUID(old.GetUID())
	}
	m.SetCreationTimestamp(old.GetCreationTimestamp())
	if old.GetDeletionTimestamp() != nil {
		m.SetDeletionTimestamp(old.GetDeletionTimestamp())
		m.SetDeletionGracePeriodSeconds(old.GetDeletionGracePeriodSeconds())
	}
	m.SetGeneration(old.GetGeneration())
	attrs := e.admissionAttributes(ctx, admission.Update, obj, existing, name, dryRun)
	if err := e.mutate(ctx, attrs); err != nil {
		return nil, err
	}
	strategy.PrepareForUpdate(ctx, obj, existing)
	errs := validation.ValidateObjectMetaAccessor(m, e.NamespaceScoped(), e.nameValidation(), field.NewPath("metadata"))
	errs = append(errs, validateMetaUpdate(m, old)...)
	errs = append(errs, strategy.ValidateUpdate(cel.WithPriorErrors(ctx, errs), obj, existing)...)
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(e.kind(obj), name, errs)
	}
	if err := e.Admission.Validate(ctx, attrs); err != nil {
		return nil, err
	}
	m.SetResourceVersion("")
	return obj, nil
}

// checkName requires the object's name to be empty (it is then set) or the URL's.
func (e *Store) checkName(name string, m metav1.Object) error {
	switch m.GetName() {
	case "":
		m.SetName(name)
	case name:
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), name))
	}
	return nil
}

// dryRunUpdate runs tryUpdate on the stored object without writing, as kube's
// DryRunnableStorage; the result carries the stored resourceVersion.
func (e *Store) dryRunUpdate(ctx context.Context, key string, tryUpdate storage.UpdateFunc) (runtime.Object, error) {
	existing := e.NewFunc()
	if err := e.Storage.Get(ctx, key, storage.GetOptions{IgnoreNotFound: true}, existing); err != nil {
		return nil, err
	}
	out, err := tryUpdate(existing)
	if err != nil {
		return nil, err
	}
	old, err := accessor(existing)
	if err != nil {
		return nil, err
	}
	m, err := accessor(out)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion(old.GetResourceVersion())
	return out, nil
}
