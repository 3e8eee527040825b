package endpoints

import (
	"context"
	"fmt"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
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

// groupTypeConverter returns the TypeConverter of a group's objects: kinds.TypeConverter,
// else one built from info's scheme and OpenAPI definitions, else managedfields' deduced
// types (every list atomic), as kube-apiserver falls back to for objects without a schema.
// Errors: the definitions do not convert to structured-merge-diff models.
func groupTypeConverter(info *registry.APIGroupInfo, kinds Kinds) (managedfields.TypeConverter, error) {
	switch {
	case kinds.TypeConverter != nil:
		return kinds.TypeConverter, nil
	case info.Scheme != nil && info.OpenAPIDefinitions != nil:
		tc, err := fieldmanager.NewTypeConverter(info.Scheme, info.OpenAPIDefinitions)
		if err != nil {
			return nil, fmt.Errorf("cannot manage the fields of %s: %w", info.Group, err)
		}
		return tc, nil
	}
	return managedfields.NewDeducedTypeConverter(), nil
}

// newFieldManager builds the scope's FieldManager over tc, as kube-apiserver's installer
// does per resource path and version: the storage's reset fields (fieldmanager.ResetFieldsStrategy)
// are never owned by a request, and a kind tc has no model for is managed with deduced
// types rather than not at all.
func (s *scope) newFieldManager(tc managedfields.TypeConverter) error {
	if s.DisableFieldManagement {
		return nil
	}
	obj, err := s.newVersioned()
	if err != nil {
		return fmt.Errorf("cannot manage the fields of %s: %w", s.kind, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(s.kind)
	if _, err := tc.ObjectToTyped(obj, typed.AllowDuplicates); isNoType(err) {
		tc = managedfields.NewDeducedTypeConverter()
	} else if err != nil {
		return fmt.Errorf("cannot manage the fields of %s: %w", s.kind, err)
	}
	cfg := fieldmanager.Config{
		TypeConverter: tc, Convertor: s.UnsafeConvertor, Defaulter: s.Defaulter, Creater: s.Creater, Typer: s.Typer,
		Kind: s.kind, Hub: s.hubGV, Subresource: s.subresource, CustomResource: s.unstructured(),
	}
	if r, ok := s.storage.(fieldmanager.ResetFieldsStrategy); ok {
		cfg.ResetFields = r.GetResetFields()
	}
	fm, err := fieldmanager.New(cfg)
	if err != nil {
		return err
	}
	s.fieldManager = fm
	return nil
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
// With field management off, obj's managedFields are cleared.
func (s *scope) managed(live, obj runtime.Object, manager string) runtime.Object {
	if s.fieldManager == nil {
		if m, err := meta.Accessor(obj); err == nil {
			m.SetManagedFields(nil)
		}
		return obj
	}
	if live == nil {
		var err error
		if live, err = s.newVersioned(); err != nil {
			live = s.storage.New()
		}
	}
	return s.fieldManager.UpdateNoErrors(live, obj, manager)
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
	return m.scope.managed(old, obj, m.manager), nil
}

// PreservesOldObject implements registry.OldObjectPreserver as the inner object does: field
// management only reads the stored object.
func (m *managedUpdate) PreservesOldObject() bool {
	p, ok := m.UpdatedObjectInfo.(registry.OldObjectPreserver)
	return ok && p.PreservesOldObject()
}
