package apiextensions

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
	"github.com/apigen-dev/apigen/runtime/registry"
)

// crdStrategy is the generated CustomResourceDefinition strategy plus what upstream's
// pkg/registry/customresourcedefinition strategy adds: the cleanup finalizer on create, and
// status.storedVersions kept listing every version objects were stored in.
type crdStrategy struct {
	registry.Strategy
}

// PrepareForCreate runs the generated PrepareForCreate (status cleared, generation 1), then
// adds the customresourcecleanup.apiextensions.k8s.io finalizer and sets status.storedVersions
// to the storage version.
func (s crdStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.Strategy.PrepareForCreate(ctx, obj)
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !slices.Contains(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer)
	}
	crd.Status.StoredVersions = nil
	addStoredVersion(crd)
}

// PrepareForUpdate runs the generated PrepareForUpdate (status kept, generation bumped on a
// spec change), then adds the storage version to status.storedVersions when it is new.
func (s crdStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.Strategy.PrepareForUpdate(ctx, obj, old)
	addStoredVersion(obj.(*apiextensionsv1.CustomResourceDefinition))
}

// GetResetFields returns the generated strategy's: status, which a write of the CRD never
// owns, as upstream's strategy.
func (s crdStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return registry.ResetFields(s.Strategy)
}

// addStoredVersion appends crd's storage version to status.storedVersions unless listed.
func addStoredVersion(crd *apiextensionsv1.CustomResourceDefinition) {
	for _, v := range crd.Spec.Versions {
		if v.Storage && !slices.Contains(crd.Status.StoredVersions, v.Name) {
			crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
		}
	}
}
