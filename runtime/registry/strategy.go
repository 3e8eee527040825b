package registry

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
