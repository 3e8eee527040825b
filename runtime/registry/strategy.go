package registry

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apigen-dev/apigen/runtime/fieldmanager"
)

// Strategy is the kind-specific behaviour a Store applies around storage, as kube's
// RESTCreateStrategy and RESTUpdateStrategy together. apigen generates one per kind (and one
// per status subresource) in the group's install package. Objects are internal (hub) objects.
type Strategy interface {
	// NamespaceScoped reports whether objects of the kind live in namespaces.
	NamespaceScoped() bool
	// PrepareForCreate clears what a client may not set on create (e.g. status, when the
	// kind has a status subresource) and sets generation to 1.
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	// PrepareForUpdate copies from old what the request may not change (status on the main
	// resource; spec and metadata on /status) and bumps generation when spec changed.
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
	// Validate checks a new object; field paths are rooted at the object ("spec.replicas").
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	// ValidateUpdate checks an update of old to obj.
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

// ResetFields returns the fields strategy's updates reset (fieldmanager.ResetFieldsStrategy),
// or nil; a Strategy wrapping another one declares the inner one's with it.
func ResetFields(strategy Strategy) map[fieldpath.APIVersion]*fieldpath.Set {
	if r, ok := strategy.(fieldmanager.ResetFieldsStrategy); ok {
		return r.GetResetFields()
	}
	return nil
}

// GetResetFields returns the fields the Strategy's updates reset, as kube-apiserver's
// Store.GetResetFields, so that server-side apply never records a request as owning them
// (status, when the kind has a status subresource); nil when the Strategy declares none.
func (e *Store) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return ResetFields(e.Strategy)
}

// GetResetFields returns the fields the status strategy's updates reset (spec, and the
// metadata a status writer may not change), as kube-apiserver's StatusREST.GetResetFields.
func (s *StatusStore) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return ResetFields(s.strategy)
}
