package registry

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/auth"
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
	if u, ok := auth.UserFrom(ctx); ok {
		a.User = u
	}
	return a
}
