package policybased

import (
	"context"
	"errors"
	"log/slog"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	"github.com/apigen-dev/apigen/runtime/authorization"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// Roles serves roles or clusterroles through the generated Store, refusing a create or
// update that would grant rules the user does not hold (see the package doc).
type Roles struct {
	*registry.Store
	guard
	// rules returns the rules an object grants and whether it has an aggregationRule.
	rules func(obj runtime.Object) ([]rbac.PolicyRule, bool)
}

// NewRoles wraps store, the Store of roles (runtime/apis/rbac/v1 Role); z answers whether a
// user may escalate, policy gives the rules users hold; log (may be nil) receives authorizer
// errors.
func NewRoles(store *registry.Store, z authorization.Authorizer, policy PolicyReader, log *slog.Logger) *Roles {
	return &Roles{Store: store, guard: guard{authorizer: z, policy: policy, log: log,
		resource: schema.GroupResource{Group: rbac.GroupName, Resource: "roles"}},
		rules: func(obj runtime.Object) ([]rbac.PolicyRule, bool) {
			return rbac.Rules(obj.(*rbacv1.Role).Rules), false
		}}
}

// NewClusterRoles is NewRoles for clusterroles (runtime/apis/rbac/v1 ClusterRole), whose
// aggregationRule needs every right.
func NewClusterRoles(store *registry.Store, z authorization.Authorizer, policy PolicyReader, log *slog.Logger) *Roles {
	return &Roles{Store: store, guard: guard{authorizer: z, policy: policy, log: log,
		resource: schema.GroupResource{Group: rbac.GroupName, Resource: "clusterroles"}},
		rules: func(obj runtime.Object) ([]rbac.PolicyRule, bool) {
			r := obj.(*rbacv1.ClusterRole)
			return rbac.Rules(r.Rules), r.AggregationRule != nil
		}}
}

// mayEscalate reports whether u is exempt from the checks: system:masters, or the escalate
// verb on the role the request addresses, as kube's RoleEscalationAuthorized.
func (s *Roles) mayEscalate(ctx context.Context, u *request.User) bool {
	if escalationAllowed(u) {
		return true
	}
	namespace, name := request.NamespaceValue(ctx), ""
	if info, ok := request.RequestInfoFrom(ctx); ok {
		namespace, name = info.Namespace, info.Name
	}
	return s.authorized(ctx, u, "escalate", s.resource.Resource, namespace, name)
}

// check refuses obj (its old version being old, nil on create) when it grants rules u does
// not hold in the request's namespace, or sets or changes an aggregationRule without every
// right.
func (s *Roles) check(ctx context.Context, u *request.User, obj, old runtime.Object) error {
	name, namespace := objectName(obj), request.NamespaceValue(ctx)
	rules, aggregated := s.rules(obj)
	if err := s.confirm(ctx, u, namespace, name, rules); err != nil {
		return err
	}
	if old != nil {
		_, oldAggregated := s.rules(old)
		aggregated = aggregated || oldAggregated
	}
	if aggregated {
		if err := s.confirm(ctx, u, namespace, name, rbac.FullAuthority); err != nil {
			if apierrors.IsForbidden(err) {
				return apierrors.NewForbidden(s.resource, name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
			}
			return err
		}
	}
	return nil
}

// Create implements rest.Creater, as kube's role policybased Storage.Create.
func (s *Roles) Create(ctx context.Context, obj runtime.Object, opts *metav1.CreateOptions) (runtime.Object, error) {
	u, err := userFrom(ctx)
	if err != nil {
		return nil, err
	}
	if !s.mayEscalate(ctx, u) {
		if err := s.check(ctx, u, obj, nil); err != nil {
			return nil, err
		}
	}
	return s.Store.Create(ctx, obj, opts)
}

// Update implements rest.Updater (PUT, PATCH, apply), as kube's role policybased
// Storage.Update: the object the update computes is checked against the one stored.
func (s *Roles) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, forceAllowCreate bool,
	opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	u, err := userFrom(ctx)
	if err != nil {
		return nil, false, err
	}
	if s.mayEscalate(ctx, u) {
		return s.Store.Update(ctx, name, objInfo, forceAllowCreate, opts)
	}
	checked := checkedUpdate(objInfo, func(ctx context.Context, obj, old runtime.Object) error {
		return s.check(ctx, u, obj, old)
	})
	return s.Store.Update(ctx, name, checked, forceAllowCreate, opts)
}
