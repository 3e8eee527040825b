package rbac

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	rbacinstall "github.com/apigen-dev/apigen/runtime/apis/rbac/v1/install"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

func rbacGroup(t *testing.T) *registry.APIGroupInfo {
	t.Helper()
	client, _ := etcdtest.Run(t)
	info, err := rbacinstall.NewAPIGroupInfo(runtime.NewScheme(), &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// TestGroupClusterRoles derives the view and edit rules of a group from the verbs its
// storage serves: RBAC's own group, whose roles and rolebindings are namespaced and
// clusterroles and clusterrolebindings cluster-scoped.
func TestGroupClusterRoles(t *testing.T) {
	roles := GroupClusterRoles(rbacGroup(t))
	all := []string{"clusterrolebindings", "clusterroles", "rolebindings", "roles"}
	want := []rbacv1.ClusterRole{
		defaultRole("system:aggregate-to-view:"+GroupName, map[string]string{AggregateToView: "true"},
			rbacv1.PolicyRule{Verbs: ReadVerbs, APIGroups: []string{GroupName}, Resources: all}),
		defaultRole("system:aggregate-to-edit:"+GroupName, map[string]string{AggregateToEdit: "true"},
			rbacv1.PolicyRule{Verbs: WriteVerbs, APIGroups: []string{GroupName}, Resources: []string{"rolebindings", "roles"}}),
	}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("group roles (-want +got):\n%s", diff)
	}
}

// TestEnsureBootstrap creates the defaults, then reconciles them as kube-apiserver's
// bootstrap does: what was removed comes back, what was added stays, an object annotated
// autoupdate=false is left alone.
func TestEnsureBootstrap(t *testing.T) {
	info := rbacGroup(t)
	stores, err := StoresOf(info)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ensure := func() {
		t.Helper()
		if err := EnsureBootstrap(ctx, stores, DefaultClusterRoles(), DefaultClusterRoleBindings()); err != nil {
			t.Fatal(err)
		}
	}
	ensure()
	get := func(store objectStore, name string) runtime.Object {
		t.Helper()
		obj, err := store.Get(ctx, name, &metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}
	change := func(store objectStore, name string, f func(runtime.Object)) {
		t.Helper()
		if _, _, err := store.Update(ctx, name, mergeInfo(func(obj runtime.Object) bool { f(obj); return true }), false, &metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	basic := get(stores.ClusterRoles, "system:basic-user").(*rbacv1.ClusterRole)
	extra := rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}
	change(stores.ClusterRoles, "system:basic-user", func(obj runtime.Object) {
		r := obj.(*rbacv1.ClusterRole)
		r.Rules = []rbacv1.PolicyRule{r.Rules[1], extra}
	})
	change(stores.ClusterRoles, "system:discovery", func(obj runtime.Object) {
		r := obj.(*rbacv1.ClusterRole)
		r.Rules, r.Annotations[AutoUpdateAnnotation] = nil, "false"
	})
	change(stores.ClusterRoleBindings, "system:public-info-viewer", func(obj runtime.Object) {
		b := obj.(*rbacv1.ClusterRoleBinding)
		b.Subjects = b.Subjects[:1]
	})
	change(stores.ClusterRoles, "view", func(obj runtime.Object) { obj.(*rbacv1.ClusterRole).AggregationRule = nil })
	ensure()

	got := get(stores.ClusterRoles, "system:basic-user").(*rbacv1.ClusterRole).Rules
	if want := []rbacv1.PolicyRule{basic.Rules[1], extra, basic.Rules[0]}; !cmp.Equal(got, want) {
		t.Errorf("system:basic-user rules after reconciling:\n%s", cmp.Diff(want, got))
	}
	if r := get(stores.ClusterRoles, "system:discovery").(*rbacv1.ClusterRole); len(r.Rules) != 0 {
		t.Errorf("autoupdate=false was reconciled: %+v", r.Rules)
	}
	if b := get(stores.ClusterRoleBindings, "system:public-info-viewer").(*rbacv1.ClusterRoleBinding); len(b.Subjects) != 2 {
		t.Errorf("binding subjects not reconciled: %+v", b.Subjects)
	}
	if r := get(stores.ClusterRoles, "view").(*rbacv1.ClusterRole); r.AggregationRule == nil || len(r.AggregationRule.ClusterRoleSelectors) != 1 {
		t.Errorf("view's aggregationRule not reconciled: %+v", r.AggregationRule)
	}
	rv := get(stores.ClusterRoles, "admin").(*rbacv1.ClusterRole).ResourceVersion
	ensure()
	if now := get(stores.ClusterRoles, "admin").(*rbacv1.ClusterRole).ResourceVersion; now != rv {
		t.Errorf("a reconciled role was written again (resourceVersion %s -> %s)", rv, now)
	}
}

// TestEnsureBootstrapRoles creates kube's namespaced default roles in their namespace
// (extension-apiserver-authentication-reader in kube-system) and reconciles them: a removed
// rule comes back, one annotated autoupdate=false is left alone.
func TestEnsureBootstrapRoles(t *testing.T) {
	stores, err := StoresOf(rbacGroup(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := request.WithNamespace(context.Background(), metav1.NamespaceSystem)
	ensure := func() {
		t.Helper()
		if err := EnsureBootstrapRoles(context.Background(), stores, DefaultRoles()); err != nil {
			t.Fatal(err)
		}
	}
	get := func() *rbacv1.Role {
		t.Helper()
		obj, err := stores.Roles.Get(ctx, ExtensionAPIServerAuthenticationReader, &metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*rbacv1.Role)
	}
	change := func(f func(*rbacv1.Role)) {
		t.Helper()
		if _, _, err := stores.Roles.Update(ctx, ExtensionAPIServerAuthenticationReader, mergeInfo(func(obj runtime.Object) bool {
			f(obj.(*rbacv1.Role))
			return true
		}), false, &metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ensure()
	want := []rbacv1.PolicyRule{{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"configmaps"},
		ResourceNames: []string{"extension-apiserver-authentication"}}}
	r := get()
	if diff := cmp.Diff(want, r.Rules); diff != "" || r.Labels[BootstrappingLabel] != "rbac-defaults" || r.Annotations[AutoUpdateAnnotation] != "true" {
		t.Errorf("role %+v; rules (-want +got):\n%s", r.ObjectMeta, diff)
	}
	change(func(r *rbacv1.Role) { r.Rules = nil })
	ensure()
	if got := get().Rules; !cmp.Equal(want, got) {
		t.Errorf("rules not reconciled: %+v", got)
	}
	change(func(r *rbacv1.Role) { r.Rules, r.Annotations[AutoUpdateAnnotation] = nil, "false" })
	ensure()
	if got := get().Rules; len(got) != 0 {
		t.Errorf("autoupdate=false was reconciled: %+v", got)
	}
}
