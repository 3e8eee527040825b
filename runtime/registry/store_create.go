package registry

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/validation/cel"

	"github.com/apigen-dev/apigen/runtime/admission"
)

// nameOf returns obj's metadata.name.
func nameOf(obj runtime.Object) (string, error) {
	m, err := accessor(obj)
	if err != nil {
		return "", err
	}
	return m.GetName(), nil
}

// Create stores obj, a new internal object, as kube-apiserver's Store.Create: it checks the
// namespace against the request's (400 on a mismatch or when a namespaced kind has none),
// requires an empty resourceVersion (400), names the object from generateName when name is
// empty (drawing again on AlreadyExists), sets uid and creationTimestamp, runs
// Strategy.PrepareForCreate and validates metadata and Strategy.Validate (422 Invalid with
// field causes), with the Admission chain's mutating plugins first and its validating ones
// last. With opts.DryRun it returns the object as it would be stored without
// storing it. Errors: 409 AlreadyExists, storage errors as apierrors.
func (e *Store) Create(ctx context.Context, obj runtime.Object, opts *metav1.CreateOptions) (runtime.Object, error) {
	if opts == nil {
		opts = &metav1.CreateOptions{}
	}
	dryRun := isDryRun(opts.DryRun)
	if name, err := nameOf(obj); err != nil {
		return nil, err
	} else if err := e.mutate(ctx, e.admissionAttributes(ctx, admission.Create, obj, nil, name, dryRun)); err != nil {
		return nil, err
	}
	m, err := e.beforeCreate(ctx, obj)
	if err != nil {
		return nil, err
	}
	generate := m.GetName() == "" && m.GetGenerateName() != ""
	for attempt := 0; ; attempt++ {
		if generate {
			m.SetName(generateName(m.GetGenerateName()))
		}
		if err := e.validateCreate(ctx, obj, m); err != nil {
			return nil, err
		}
		if err := e.Admission.Validate(ctx, e.admissionAttributes(ctx, admission.Create, obj, nil, m.GetName(), dryRun)); err != nil {
			return nil, err
		}
		if dryRun {
			return obj, nil
		}
		out, err := e.store(ctx, obj, m.GetName())
		if generate && apierrors.IsAlreadyExists(err) && attempt+1 < generateNameAttempts {
			continue
		}
		return out, err
	}
}

// beforeCreate fills the metadata the server owns and runs PrepareForCreate, as
// kube's rest.BeforeCreate.
func (e *Store) beforeCreate(ctx context.Context, obj runtime.Object) (metav1.Object, error) {
	m, err := accessor(obj)
	if err != nil {
		return nil, err
	}
	ns, err := e.namespace(ctx)
	if err != nil {
		return nil, err
	}
	if e.NamespaceScoped() && m.GetNamespace() != "" && m.GetNamespace() != ns {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	m.SetNamespace(ns)
	if m.GetResourceVersion() != "" {
		return nil, apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
	}
	m.SetUID(uuid.NewUUID())
	m.SetCreationTimestamp(metav1.Now().Rfc3339Copy()) // what storage keeps: whole seconds
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	e.Strategy.PrepareForCreate(ctx, obj)
	return m, nil
}

// validateCreate checks the metadata (name as NameValidation says, labels, annotations,
// finalizers) and the kind's rules; 422 Invalid when any fails.
func (e *Store) validateCreate(ctx context.Context, obj runtime.Object, m metav1.Object) error {
	errs := validation.ValidateObjectMetaAccessor(m, e.NamespaceScoped(), e.nameValidation(), field.NewPath("metadata"))
	errs = append(errs, e.Strategy.Validate(cel.WithPriorErrors(ctx, errs), obj)...)
	if len(errs) > 0 {
		return apierrors.NewInvalid(e.kind(obj), m.GetName(), errs)
	}
	return nil
}

// store writes obj under name and returns the stored object.
func (e *Store) store(ctx context.Context, obj runtime.Object, name string) (runtime.Object, error) {
	key, err := e.keyFor(ctx, name)
	if err != nil {
		return nil, err
	}
	out := e.NewFunc()
	if err := e.Storage.Create(e.withTTL(ctx), key, obj, out); err != nil {
		return nil, interpretError(err, e.DefaultQualifiedResource, name)
	}
	return out, nil
}
