package aggregation

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	rbacinstall "github.com/apigen-dev/apigen/runtime/apis/rbac/v1/install"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

func rule(verb, resource string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: []string{verb}, APIGroups: []string{"db.example.com"}, Resources: []string{resource}}
}

func role(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
}

// TestAggregate: selector by selector, matching roles in name order, each rule once, the
// aggregated role itself left out.
func TestAggregate(t *testing.T) {
	viewer := role("viewer", nil)
	viewer.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
		{MatchLabels: map[string]string{"a": "true"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "b", Operator: metav1.LabelSelectorOpExists}}},
	}}
	viewer.Labels = map[string]string{"a": "true"}
	viewer.Rules = []rbacv1.PolicyRule{rule("stale", "x")}
	roles := map[string]*rbacv1.ClusterRole{
		"viewer": viewer,
		"z-a":    role("z-a", map[string]string{"a": "true"}, rule("get", "databases"), rule("list", "databases")),
		"m-a":    role("m-a", map[string]string{"a": "true"}, rule("list", "databases"), rule("get", "backups")),
		"b-only": role("b-only", map[string]string{"b": "x"}, rule("watch", "databases"), rule("get", "databases")),
		"none":   role("none", map[string]string{"a": "false"}, rule("delete", "databases")),
	}
	got, err := Aggregate(viewer, roles)
	if err != nil {
		t.Fatal(err)
	}
	want := []rbacv1.PolicyRule{rule("list", "databases"), rule("get", "backups"), rule("get", "databases"), rule("watch", "databases")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("aggregated rules (-want +got):\n%s", diff)
	}
	bad := role("bad", nil)
	bad.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"bad key!": "x"}}}}
	if _, err := Aggregate(bad, roles); err == nil {
		t.Error("an invalid selector aggregated")
	}
}

// TestController runs the controller over the RBAC group on a real etcd with the default
// roles: a ClusterRole labelled aggregate-to-view extends view, edit (view aggregates into
// edit) and admin; removing the label or the role takes its rules away again.
func TestController(t *testing.T) {
	client, _ := etcdtest.Run(t)
	info, err := rbacinstall.NewAPIGroupInfo(runtime.NewScheme(), &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	stores, err := rbac.StoresOf(info)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := rbac.EnsureBootstrap(ctx, stores, rbac.DefaultClusterRoles(), nil); err != nil {
		t.Fatal(err)
	}
	clusterRoles := info.VersionedResourcesStorageMap["v1"]["clusterroles"].(*registry.Store)
	done := make(chan struct{})
	go func() { NewController(clusterRoles, nil).Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	dbReader := role("db-reader", map[string]string{rbac.AggregateToView: "true"}, rule("get", "databases"), rule("list", "databases"))
	start := time.Now()
	if _, err := clusterRoles.Create(ctx, dbReader, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	has := func(name string, want rbacv1.PolicyRule) bool {
		obj, err := clusterRoles.Get(ctx, name, &metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range obj.(*rbacv1.ClusterRole).Rules {
			if cmp.Equal(r, want) {
				return true
			}
		}
		return false
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 20s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, name := range []string{"view", "edit", "admin"} {
		waitFor(name+" gains db-reader's rules", func() bool { return has(name, rule("list", "databases")) })
	}
	t.Logf("view, edit and admin aggregated a new role %v after its create", time.Since(start))
	// The labelled system:aggregate-to-view rules stay there too.
	if !has("view", rbacv1.PolicyRule{Verbs: rbac.ReadVerbs, APIGroups: []string{""}, Resources: []string{"configmaps", "events", "namespaces"}}) {
		t.Error("view lost system:aggregate-to-view's rules")
	}
	if has("view", rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"localsubjectaccessreviews"}}) {
		t.Error("view has admin's rules")
	}

	unlabel := updateFunc(func(_ context.Context, old runtime.Object) (runtime.Object, error) {
		r := old.DeepCopyObject().(*rbacv1.ClusterRole)
		r.Labels = nil
		return r, nil
	})
	if _, _, err := clusterRoles.Update(ctx, "db-reader", unlabel, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"view", "edit", "admin"} {
		waitFor(name+" loses db-reader's rules", func() bool { return !has(name, rule("list", "databases")) })
	}
}
