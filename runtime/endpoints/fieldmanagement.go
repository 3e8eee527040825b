package endpoints

import (
	"context"
	"fmt"
	"strings"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apigen-dev/apigen/runtime/fieldmanager"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// InstallAPIGroupWithoutFieldManagement is InstallAPIGroup with field management off
// (Kinds.DisableFieldManagement), as kube-apiserver with its ServerSideApply feature gate
// off; for measuring what field management costs.
func InstallAPIGroupWithoutFieldManagement(container *restful.Container, info *registry.APIGroupInfo) ([]*metav1.APIResourceList, error) {
	if info == nil || info.Scheme == nil {
		return nil, fmt.Errorf("cannot install an API group without a scheme")
	}
	kinds := SchemeKinds(info.Scheme)
	kinds.DisableFieldManagement = true
	return InstallAPIGroupWithKinds(container, info, kinds)
}

// groupTypeConverter returns the function that gives the TypeConverter of a group's objects:
// kinds.TypeConverter, else one built from info's scheme and OpenAPI definitions at the
// function's first call (fieldmanager.DeferredTypeConverter: a server at rest never builds
// it), else managedfields' deduced types (every list atomic), as kube-apiserver falls back to
// for objects without a schema. Errors: the definitions do not convert to
// structured-merge-diff models.
func groupTypeConverter(info *registry.APIGroupInfo, kinds Kinds) func() (managedfields.TypeConverter, error) {
	switch {
	case kinds.TypeConverter != nil:
		return func() (managedfields.TypeConverter, error) { return kinds.TypeConverter, nil }
	case info.Scheme != nil && info.OpenAPIDefinitions != nil:
		deferred := fieldmanager.DeferredTypeConverter(info.Scheme, info.OpenAPIDefinitions)
		return func() (managedfields.TypeConverter, error) {
			tc, err := deferred()
			if err != nil {
				return nil, fmt.Errorf("cannot manage the fields of %s: %w", info.Group, err)
			}
			return tc, nil
		}
	}
	return func() (managedfields.TypeConverter, error) { return managedfields.NewDeducedTypeConverter(), nil }
}

// newFieldManager sets the scope's FieldManager over the converter tc gives, as
// kube-apiserver's installer does per resource path and version, except that it is built at
// the scope's first write (once; its result is the same at any time): the storage's reset
// fields (fieldmanager.ResetFieldsStrategy) are never owned by a request, and a kind tc has
// no model for is managed with deduced types rather than not at all. With field management
// off the scope has none.
func (s *scope) newFieldManager(tc func() (managedfields.TypeConverter, error)) {
	if s.DisableFieldManagement {
		return
	}
	s.fieldManager = sync.OnceValues(func() (*managedfields.FieldManager, error) {
		fm, err := s.buildFieldManager(tc)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		return fm, nil
	})
}

// buildFieldManager builds the scope's FieldManager over the converter tc gives.
func (s *scope) buildFieldManager(newTC func() (managedfields.TypeConverter, error)) (*managedfields.FieldManager, error) {
	tc, err := newTC()
	if err != nil {
		return nil, err
	}
	obj, err := s.newVersioned()
	if err != nil {
		return nil, fmt.Errorf("cannot manage the fields of %s: %w", s.kind, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(s.kind)
	if _, err := tc.ObjectToTyped(obj, typed.AllowDuplicates); isNoType(err) {
		tc = managedfields.NewDeducedTypeConverter()
	} else if err != nil {
		return nil, fmt.Errorf("cannot manage the fields of %s: %w", s.kind, err)
	}
	cfg := fieldmanager.Config{
		TypeConverter: tc, Convertor: s.UnsafeConvertor, Defaulter: s.Defaulter, Creater: s.Creater, Typer: s.Typer,
		Kind: s.kind, Hub: s.hubGV, Subresource: s.subresource, CustomResource: s.unstructured(),
	}
	if r, ok := s.storage.(fieldmanager.ResetFieldsStrategy); ok {
		cfg.ResetFields = r.GetResetFields()
	}
	return fieldmanager.New(cfg)
}

// isNoType reports whether err is managedfields' error for a kind its models do not have
// (an unexported type: its message is the contract).
func isNoType(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "no corresponding type for ")
}

// managed returns obj with managedFields updated for a write by the request's manager
// (fieldManager, or the User-Agent's product), as kube-apiserver's handlers call
// FieldManager.UpdateNoErrors: live is the stored object, nil for a create, which starts
// from an empty object of the request's version as kube-apiserver's create handler does
// (scope.Creater.New(scope.Kind)), never converted. A failure keeps live's managedFields.
// With field management off, obj's managedFields are cleared. Errors: the scope's
// FieldManager cannot be built (500 InternalError).
func (s *scope) managed(live, obj runtime.Object, manager string) (runtime.Object, error) {
	if s.fieldManager == nil {
		if m, err := meta.Accessor(obj); err == nil {
			m.SetManagedFields(nil)
		}
		return obj, nil
	}
	fm, err := s.fieldManager()
	if err != nil {
		return nil, err
	}
	if live == nil {
		if live, err = s.newVersioned(); err != nil {
			live = s.storage.New()
		}
	}
	return fm.UpdateNoErrors(live, obj, manager), nil
}

// managedUpdate is a rest.UpdatedObjectInfo whose object gets its managedFields updated
// against the stored object, as the transformer kube-apiserver's update handler adds.
type managedUpdate struct {
	rest.UpdatedObjectInfo
	scope   *scope
	manager string
}

// UpdatedObject returns the inner object with managedFields updated against old.
func (m *managedUpdate) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	obj, err := m.UpdatedObjectInfo.UpdatedObject(ctx, old)
	if err != nil {
		return nil, err
	}
	return m.scope.managed(old, obj, m.manager)
}

// PreservesOldObject implements registry.OldObjectPreserver as the inner object does: field
// management only reads the stored object.
func (m *managedUpdate) PreservesOldObject() bool {
	p, ok := m.UpdatedObjectInfo.(registry.OldObjectPreserver)
	return ok && p.PreservesOldObject()
}
