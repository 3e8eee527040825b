package policybased

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// served are the rest interfaces the wrappers serve; everything but Create and Update is the
// Store's.
type served interface {
	rest.Creater
	rest.Updater
	rest.Lister
	rest.Watcher
	rest.GracefulDeleter
	rest.TableConvertor
}

var (
	_ served = (*Roles)(nil)
	_ served = (*Bindings)(nil)
)

// PolicyReader reads the RBAC policy in force now; rbac.StoragePolicy's Current is one.
type PolicyReader interface {
	Current(ctx context.Context) (*rbac.Policy, error)
}

// guard is what every wrapper shares: the authorizer asked for escalate and bind, the policy
// the user's rules are read from, and the resource for errors.
type guard struct {
	authorizer authorization.Authorizer
	policy     PolicyReader
	resource   schema.GroupResource
	log        *slog.Logger
}

// escalationAllowed reports whether u is in system:masters, as kube's
// rbacregistry.EscalationAllowed: the group the server's own privileged clients use.
func escalationAllowed(u *request.User) bool {
	return u != nil && u.InGroup(request.SystemPrivilegedGroup)
}

// authorized asks the authorizer whether u may do verb (escalate, bind) on the role resource
// ("roles", "clusterroles") named name in namespace, as kube's RoleEscalationAuthorized and
// BindingAuthorized (API version "*"). An authorizer error counts as no.
func (g *guard) authorized(ctx context.Context, u *request.User, verb, resource, namespace, name string) bool {
	if g.authorizer == nil || u == nil {
		return false
	}
	a := authorization.Attributes{User: u, RequestInfo: request.RequestInfo{IsResourceRequest: true, Verb: verb,
		APIGroup: rbac.GroupName, APIVersion: "*", Resource: resource, Namespace: namespace, Name: name}}
	d, _, err := g.authorizer.Authorize(ctx, a)
	if err != nil && g.log != nil {
		g.log.Warn("cannot authorize an RBAC escalation check", "user", u.Name, "verb", verb, "resource", resource, "name", name, "err", err)
	}
	return d == authorization.Allow
}

// confirm refuses, with 403, rules u does not hold in namespace; name is the object's.
func (g *guard) confirm(ctx context.Context, u *request.User, namespace, name string, rules []rbac.PolicyRule) error {
	p, err := g.policy.Current(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("cannot read the RBAC policy: %w", err))
	}
	if err := rbac.ConfirmNoEscalation(p, u, namespace, rules); err != nil {
		return apierrors.NewForbidden(g.resource, name, err)
	}
	return nil
}

// checkedUpdate wraps objInfo so that check runs on the object an update computes, after the
// object stored is known, unless only the fields the garbage collector writes change.
func checkedUpdate(objInfo rest.UpdatedObjectInfo, check func(ctx context.Context, obj, old runtime.Object) error) rest.UpdatedObjectInfo {
	return updatedObjectFunc(func(ctx context.Context, old runtime.Object) (runtime.Object, error) {
		obj, err := objInfo.UpdatedObject(ctx, old)
		if err != nil {
			return nil, err
		}
		if onlyGCFieldsChange(obj, old) {
			return obj, nil
		}
		if err := check(ctx, obj, old); err != nil {
			return nil, err
		}
		return obj, nil
	})
}

// updatedObjectFunc adapts a function to rest.UpdatedObjectInfo.
type updatedObjectFunc func(ctx context.Context, old runtime.Object) (runtime.Object, error)

// UpdatedObject implements rest.UpdatedObjectInfo.
func (f updatedObjectFunc) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	return f(ctx, old)
}

// onlyGCFieldsChange reports whether obj differs from old (nil: a create) at most in
// metadata.ownerReferences, finalizers and managedFields, as kube's IsOnlyMutatingGCFields.
func onlyGCFieldsChange(obj, old runtime.Object) bool {
	if old == nil {
		return false
	}
	copied := obj.DeepCopyObject()
	copiedMeta, err1 := meta.Accessor(copied)
	oldMeta, err2 := meta.Accessor(old)
	if err1 != nil || err2 != nil {
		return false
	}
	copiedMeta.SetOwnerReferences(oldMeta.GetOwnerReferences())
	copiedMeta.SetFinalizers(oldMeta.GetFinalizers())
	copiedMeta.SetManagedFields(oldMeta.GetManagedFields())
	return equality.Semantic.DeepEqual(copied, old)
}

// userFrom returns the request's user; a request without one may not write RBAC objects.
func userFrom(ctx context.Context) (*request.User, error) {
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewForbidden(schema.GroupResource{Group: rbac.GroupName}, "", errors.New("no user on request"))
	}
	return u, nil
}

// objectName returns obj's metadata.name, or "".
func objectName(obj runtime.Object) string {
	if m, err := meta.Accessor(obj); err == nil {
		return m.GetName()
	}
	return ""
}
