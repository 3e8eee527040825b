package validation

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/request"
)

// Declarative runs the declarative validation registered in scheme (the generated
// RegisterValidations of every version package) for obj, an internal (hub) object, as
// k8s.io/apiserver's rest.ValidateDeclaratively: obj is converted to the version of the
// request (request.RequestInfoFrom(ctx), when it names obj's group and a version that has obj's
// kind; else the scheme's most preferred version of the group that has it), then validated
// with scheme.Validate, or scheme.ValidateUpdate against old converted alike when old is not
// nil. Field paths and values in the errors are therefore those of the client's version. The
// request's subresource ("status", "scale") is passed on as operation.Request.Subresources.
//
// The request's document (request.DocumentFrom) is passed on to the validation functions
// (KeyPresent) when it is an object of the version validated, and withheld otherwise.
//
// A type without a registered validation function passes. A conversion failure is a single
// field.InternalError. obj and old are converted without a copy (convertForValidation) and
// are left as they were.
func Declarative(ctx context.Context, scheme *runtime.Scheme, obj, old runtime.Object) field.ErrorList {
	gvk, err := internalKind(scheme, obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	gv, subresources := targetVersion(ctx, scheme, gvk)
	versioned, restore, err := convertForValidation(scheme, obj, gv)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("cannot convert %s to %s: %w", gvk.Kind, gv, err))}
	}
	defer restore()
	ctx = withValidatedDocument(ctx, gv.WithKind(gvk.Kind))
	if old == nil {
		return scheme.Validate(ctx, nil, versioned, subresources...)
	}
	versionedOld, restoreOld, err := convertForValidation(scheme, old, gv)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("cannot convert the old %s to %s: %w", gvk.Kind, gv, err))}
	}
	defer restoreOld()
	return scheme.ValidateUpdate(ctx, nil, versioned, versionedOld, subresources...)
}

// convertForValidation converts obj to gv for reading only, without copying it first (as
// runtime.UnsafeObjectConvertor): the result may share memory with obj, or be obj itself
// when its type is already gv's. The validation functions only read what they are given.
// The conversion sets the result's apiVersion and kind, which for obj itself would change
// the caller's object: restore puts obj's own back, as kube's versioning codec does after
// encoding. Call restore when done with the result.
func convertForValidation(scheme *runtime.Scheme, obj runtime.Object, gv schema.GroupVersion) (runtime.Object, func(), error) {
	kind := obj.GetObjectKind()
	saved := kind.GroupVersionKind()
	versioned, err := scheme.UnsafeConvertToVersion(obj, gv)
	if err != nil {
		kind.SetGroupVersionKind(saved)
		return nil, nil, err
	}
	return versioned, func() { kind.SetGroupVersionKind(saved) }, nil
}

// internalKind returns the group and kind scheme knows obj's type by.
func internalKind(scheme *runtime.Scheme, obj runtime.Object) (schema.GroupVersionKind, error) {
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("cannot validate object: %w", err)
	}
	for _, gvk := range gvks {
		if gvk.Version == runtime.APIVersionInternal {
			return gvk, nil
		}
	}
	return gvks[0], nil
}

// targetVersion picks the version to validate gvk's objects in, and the request's
// subresources.
func targetVersion(ctx context.Context, scheme *runtime.Scheme, gvk schema.GroupVersionKind) (schema.GroupVersion, []string) {
	var subresources []string
	if info, ok := request.RequestInfoFrom(ctx); ok {
		if info.Subresource != "" {
			subresources = strings.Split(info.Subresource, "/")
		}
		gv := schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
		if gv.Group == gvk.Group && gv.Version != "" && scheme.Recognizes(gv.WithKind(gvk.Kind)) {
			return gv, subresources
		}
	}
	for _, gv := range scheme.PrioritizedVersionsForGroup(gvk.Group) {
		if scheme.Recognizes(gv.WithKind(gvk.Kind)) {
			return gv, subresources
		}
	}
	return gvk.GroupVersion(), subresources
}
