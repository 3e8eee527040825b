package rbac

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/component-helpers/auth/rbac/validation"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// objectStore is what EnsureBootstrap writes through: a generated Store, unguarded.
type objectStore interface {
	rest.Getter
	rest.Creater
	rest.Updater
}

// EnsureBootstrap creates or reconciles roles and bindings through stores (unguarded), as kube-apiserver's rbac/bootstrap-roles post-start hook with
// reconciliation: a missing object is created; an existing one whose AutoUpdateAnnotation is
// not "false" gains the labels, annotations, rules (each wanted rule its rules do not cover),
// aggregation selectors and subjects it lacks; nothing is removed, and a binding's roleRef is
// left as it is. Errors: the first create or update failing for another reason than a
// concurrent create.
func EnsureBootstrap(ctx context.Context, stores *RBACStores, roles []rbacv1.ClusterRole, bindings []rbacv1.ClusterRoleBinding) error {
	for i := range roles {
		want := &roles[i]
		if err := reconcile(ctx, stores.ClusterRoles, want.Name, want, func(obj runtime.Object) bool {
			return mergeRole(obj.(*rbacv1.ClusterRole), want)
		}); err != nil {
			return fmt.Errorf("cannot reconcile ClusterRole %s: %w", want.Name, err)
		}
	}
	for i := range bindings {
		want := &bindings[i]
		if err := reconcile(ctx, stores.ClusterRoleBindings, want.Name, want, func(obj runtime.Object) bool {
			return mergeBinding(obj.(*rbacv1.ClusterRoleBinding), want)
		}); err != nil {
			return fmt.Errorf("cannot reconcile ClusterRoleBinding %s: %w", want.Name, err)
		}
	}
	return nil
}

// EnsureBootstrapRoles creates or reconciles the namespaced roles (each in its namespace)
// through stores (unguarded), as EnsureBootstrap does ClusterRoles, as kube-apiserver's
// rbac/bootstrap-roles hook does its namespaced roles. Errors: the first create or update
// failing for another reason than a concurrent create, as the store returned it (404
// NotFound when the NamespaceLifecycle admission plugin finds no such namespace yet).
func EnsureBootstrapRoles(ctx context.Context, stores *RBACStores, roles []rbacv1.Role) error {
	for i := range roles {
		want := &roles[i]
		if err := reconcile(request.WithNamespace(ctx, want.Namespace), stores.Roles, want.Name, want, func(obj runtime.Object) bool {
			r := obj.(*rbacv1.Role)
			return mergeRules(&r.ObjectMeta, &r.Rules, &want.ObjectMeta, want.Rules)
		}); err != nil {
			return fmt.Errorf("cannot reconcile Role %s/%s: %w", want.Namespace, want.Name, err)
		}
	}
	return nil
}

// RBACStores are the unguarded stores EnsureBootstrap and EnsureBootstrapRoles write through.
type RBACStores struct {
	ClusterRoles, ClusterRoleBindings, Roles objectStore
}

// StoresOf returns the clusterroles, clusterrolebindings and roles stores of info, the RBAC
// group runtime/apis/rbac/v1/install builds. Errors: info lacks them.
func StoresOf(info *registry.APIGroupInfo) (*RBACStores, error) {
	stores := info.VersionedResourcesStorageMap["v1"]
	clusterRoles, ok1 := stores["clusterroles"].(objectStore)
	bindings, ok2 := stores["clusterrolebindings"].(objectStore)
	roles, ok3 := stores["roles"].(objectStore)
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("the RBAC group serves no clusterroles, clusterrolebindings or roles")
	}
	return &RBACStores{ClusterRoles: clusterRoles, ClusterRoleBindings: bindings, Roles: roles}, nil
}

// reconcile creates want, or, when name exists and is not opted out, updates it with merge
// (reporting whether it changed anything) when merge changes something.
func reconcile(ctx context.Context, s objectStore, name string, want runtime.Object, merge func(runtime.Object) bool) error {
	_, err := s.Create(ctx, want.DeepCopyObject(), &metav1.CreateOptions{})
	if err == nil || !apierrors.IsAlreadyExists(err) {
		return err
	}
	current, err := s.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return err
	}
	if !merge(current.DeepCopyObject()) {
		return nil
	}
	_, _, err = s.Update(ctx, name, mergeInfo(merge), false, &metav1.UpdateOptions{})
	return err
}

// mergeInfo applies merge to the object stored when the update runs.
type mergeInfo func(runtime.Object) bool

// UpdatedObject implements rest.UpdatedObjectInfo.
func (m mergeInfo) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewConflict(rbacv1.SchemeGroupVersion.WithResource("clusterroles").GroupResource(), "", fmt.Errorf("removed while reconciled"))
	}
	obj := old.DeepCopyObject()
	m(obj)
	return obj, nil
}

// mergeMeta adds want's labels and annotations to m; false when m opts out of updates.
func mergeMeta(m, want *metav1.ObjectMeta) (changed, ok bool) {
	if m.Annotations[AutoUpdateAnnotation] == "false" {
		return false, false
	}
	add := func(dst *map[string]string, src map[string]string) {
		for k, v := range src {
			if _, has := (*dst)[k]; !has {
				if *dst == nil {
					*dst = map[string]string{}
				}
				(*dst)[k], changed = v, true
			}
		}
	}
	add(&m.Labels, want.Labels)
	add(&m.Annotations, want.Annotations)
	return changed, true
}

// mergeRules adds to meta and rules (a role's) the labels, annotations and rules of want and
// wantRules they lack; it reports whether they changed, false when meta opts out of updates.
func mergeRules(meta *metav1.ObjectMeta, rules *[]rbacv1.PolicyRule, want *metav1.ObjectMeta, wantRules []rbacv1.PolicyRule) bool {
	changed, ok := mergeMeta(meta, want)
	if !ok {
		return false
	}
	for _, rule := range wantRules {
		if covered, _ := validation.Covers(Rules(*rules), Rules([]rbacv1.PolicyRule{rule})); !covered {
			*rules, changed = append(*rules, rule), true
		}
	}
	return changed
}

// mergeRole adds to r what want has and r lacks; it reports whether r changed.
func mergeRole(r, want *rbacv1.ClusterRole) bool {
	if r.Annotations[AutoUpdateAnnotation] == "false" {
		return false
	}
	changed := mergeRules(&r.ObjectMeta, &r.Rules, &want.ObjectMeta, want.Rules)
	if want.AggregationRule != nil {
		if r.AggregationRule == nil {
			r.AggregationRule = &rbacv1.AggregationRule{}
		}
		for _, sel := range want.AggregationRule.ClusterRoleSelectors {
			if !slices.ContainsFunc(r.AggregationRule.ClusterRoleSelectors, func(s metav1.LabelSelector) bool { return equality.Semantic.DeepEqual(s, sel) }) {
				r.AggregationRule.ClusterRoleSelectors = append(r.AggregationRule.ClusterRoleSelectors, sel)
				changed = true
			}
		}
	}
	return changed
}

// mergeBinding adds to b the subjects of want it lacks; it reports whether b changed.
func mergeBinding(b, want *rbacv1.ClusterRoleBinding) bool {
	changed, ok := mergeMeta(&b.ObjectMeta, &want.ObjectMeta)
	if !ok {
		return false
	}
	for _, s := range want.Subjects {
		if !slices.Contains(b.Subjects, s) {
			b.Subjects, changed = append(b.Subjects, s), true
		}
	}
	return changed
}
