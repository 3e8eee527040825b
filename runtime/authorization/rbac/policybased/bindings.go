package policybased

import (
	"context"
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

// Bindings serves rolebindings or clusterrolebindings through the generated Store, refusing
// a create or update binding a role whose rules the user does not hold, unless the user may
// bind that role (see the package doc).
type Bindings struct {
	*registry.Store
	guard
	// roleRef returns the role an object binds.
	roleRef func(obj runtime.Object) rbacv1.RoleRef
}

// NewRoleBindings wraps store, the Store of rolebindings (runtime/apis/rbac/v1 RoleBinding);
// z answers whether a user may bind a role, policy gives the rules users hold and roles
// grant; log (may be nil) receives authorizer errors.
func NewRoleBindings(store *registry.Store, z authorization.Authorizer, policy PolicyReader, log *slog.Logger) *Bindings {
	return &Bindings{Store: store, guard: guard{authorizer: z, policy: policy, log: log,
		resource: schema.GroupResource{Group: rbac.GroupName, Resource: "rolebindings"}},
		roleRef: func(obj runtime.Object) rbacv1.RoleRef { return obj.(*rbacv1.RoleBinding).RoleRef }}
}

// NewClusterRoleBindings is NewRoleBindings for clusterrolebindings (runtime/apis/rbac/v1
// ClusterRoleBinding), checked cluster-wide.
func NewClusterRoleBindings(store *registry.Store, z authorization.Authorizer, policy PolicyReader, log *slog.Logger) *Bindings {
	return &Bindings{Store: store, guard: guard{authorizer: z, policy: policy, log: log,
		resource: schema.GroupResource{Group: rbac.GroupName, Resource: "clusterrolebindings"}},
		roleRef: func(obj runtime.Object) rbacv1.RoleRef { return obj.(*rbacv1.ClusterRoleBinding).RoleRef }}
}

// check refuses obj unless u may bind its role in the request's namespace ("" for a
// ClusterRoleBinding) or already holds every rule of it there, as kube's binding policybased
// storage: BindingAuthorized, then GetRoleReferenceRules and ConfirmNoEscalation. A binding
// to a missing role the user may not bind is 404 NotFound, as in kube.
func (s *Bindings) check(ctx context.Context, u *request.User, obj runtime.Object) error {
	namespace, ref := request.NamespaceValue(ctx), s.roleRef(obj)
	resource := ""
	switch ref.Kind {
	case "Role":
		resource = "roles"
	case "ClusterRole":
		resource = "clusterroles"
	}
	if resource != "" && ref.APIGroup == rbac.GroupName && s.authorized(ctx, u, "bind", resource, namespace, ref.Name) {
		return nil
	}
	p, err := s.policy.Current(ctx)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	rules, err := p.RoleRules(rbac.RoleRef{Kind: ref.Kind, Name: ref.Name}, namespace)
	if err != nil {
		return err
	}
	return s.confirm(ctx, u, namespace, objectName(obj), rules)
}

// Create implements rest.Creater, as kube's rolebinding policybased Storage.Create.
func (s *Bindings) Create(ctx context.Context, obj runtime.Object, opts *metav1.CreateOptions) (runtime.Object, error) {
	u, err := userFrom(ctx)
	if err != nil {
		return nil, err
	}
	if !escalationAllowed(u) {
		if err := s.check(ctx, u, obj); err != nil {
			return nil, err
		}
	}
	return s.Store.Create(ctx, obj, opts)
}

// Update implements rest.Updater (PUT, PATCH, apply), as kube's rolebinding policybased
// Storage.Update: the object the update computes is checked.
func (s *Bindings) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, forceAllowCreate bool,
	opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	u, err := userFrom(ctx)
	if err != nil {
		return nil, false, err
	}
	if escalationAllowed(u) {
		return s.Store.Update(ctx, name, objInfo, forceAllowCreate, opts)
	}
	checked := checkedUpdate(objInfo, func(ctx context.Context, obj, _ runtime.Object) error {
		return s.check(ctx, u, obj)
	})
	return s.Store.Update(ctx, name, checked, forceAllowCreate, opts)
}
