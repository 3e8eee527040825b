package registry

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/request"
)

// admissionAttributes describes a write of the store's resource for the admission chain:
// the request's version, subresource, namespace and user come from ctx.
func (e *Store) admissionAttributes(ctx context.Context, op admission.Operation, obj, old runtime.Object, name string, dryRun bool) *admission.Attributes {
	version, sub := "", ""
	if info, ok := request.RequestInfoFrom(ctx); ok {
		version, sub = info.APIVersion, info.Subresource
	}
	kindOf := obj
	if kindOf == nil {
		kindOf = old
	}
	a := &admission.Attributes{
		Operation:   op,
		Kind:        e.kind(kindOf).WithVersion(version),
		Resource:    e.DefaultQualifiedResource.WithVersion(version),
		Subresource: sub,
		Namespace:   request.NamespaceValue(ctx),
		Name:        name,
		Object:      obj,
		OldObject:   old,
		DryRun:      dryRun,
	}
	if !e.NamespaceScoped() {
		a.Namespace = ""
	}
	if u, ok := request.UserFrom(ctx); ok {
		a.User = u
	}
	return a
}

// mutate runs the Admission chain's mutating plugins on attrs.Object, keeping its
// managedFields as they were when a plugin leaves them invalid (managedfields cannot decode
// them), as kube-apiserver's managedFieldsValidatingAdmissionController guards its mutating
// admission; kube also adds a warning, which this server does not.
func (e *Store) mutate(ctx context.Context, attrs *admission.Attributes) error {
	m, err := meta.Accessor(attrs.Object)
	if e.Admission == nil || err != nil {
		return e.Admission.Mutate(ctx, attrs)
	}
	before := m.GetManagedFields()
	if err := e.Admission.Mutate(ctx, attrs); err != nil {
		return err
	}
	after := m.GetManagedFields()
	unchanged := len(after) == len(before) && (len(after) == 0 || &after[0] == &before[0])
	if !unchanged && managedfields.ValidateManagedFields(after) != nil {
		m.SetManagedFields(before)
	}
	return nil
}
