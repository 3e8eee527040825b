package policybased

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	rbacinstall "github.com/apigen-dev/apigen/runtime/apis/rbac/v1/install"
	"github.com/apigen-dev/apigen/runtime/authorization/rbac"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// fixture is the RBAC group on a real etcd: raw are the generated Stores (the admin's way
// in), the wrappers the checked ones.
type fixture struct {
	raw                               map[string]*registry.Store
	policy                            *rbac.StoragePolicy
	roles, clusterRoles               *Roles
	roleBindings, clusterRoleBindings *Bindings
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	client, _ := etcdtest.Run(t)
	info, err := rbacinstall.NewAPIGroupInfo(runtime.NewScheme(), &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	policy, err := rbac.NewStoragePolicy(info)
	if err != nil {
		t.Fatal(err)
	}
	stores, err := rbac.StoresOf(info)
	if err != nil {
		t.Fatal(err)
	}
	if err := rbac.EnsureBootstrap(context.Background(), stores, rbac.DefaultClusterRoles(), rbac.DefaultClusterRoleBindings()); err != nil {
		t.Fatal(err)
	}
	raw := map[string]*registry.Store{}
	for name, s := range info.VersionedResourcesStorageMap["v1"] {
		raw[name] = s.(*registry.Store)
	}
	z := rbac.Authorizer(policy)
	return &fixture{raw: raw, policy: policy,
		roles: NewRoles(raw["roles"], z, policy, nil), clusterRoles: NewClusterRoles(raw["clusterroles"], z, policy, nil),
		roleBindings: NewRoleBindings(raw["rolebindings"], z, policy, nil), clusterRoleBindings: NewClusterRoleBindings(raw["clusterrolebindings"], z, policy, nil)}
}

// admin creates obj through the raw store of resource, in namespace, and makes the policy
// read it.
func (f *fixture) admin(t *testing.T, resource, namespace string, obj runtime.Object) {
	t.Helper()
	if _, err := f.raw[resource].Create(request.WithNamespace(context.Background(), namespace), obj, &metav1.CreateOptions{}); err != nil {
		t.Fatalf("create %s: %v", resource, err)
	}
	if _, err := f.policy.Current(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func as(u *request.User, namespace string) context.Context {
	return request.WithNamespace(request.WithUser(context.Background(), u), namespace)
}

func rule(verbs, groups, resources string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: strings.Split(verbs, ","), APIGroups: strings.Split(groups, ","),
		Resources: strings.Split(resources, ","), ResourceNames: names}
}

func roleRef(kind, name string) rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: rbac.GroupName, Kind: kind, Name: name}
}

func userSubject(name string) []rbacv1.Subject {
	return []rbacv1.Subject{{Kind: "User", APIGroup: rbac.GroupName, Name: name}}
}

var alice = &request.User{Name: "alice", Groups: []string{request.AllAuthenticated}}

// wantForbidden fails unless err is 403 with msg in its message.
func wantForbidden(t *testing.T, what string, err error, msg string) {
	t.Helper()
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: %v, want 403 with %q", what, err, msg)
	}
}

// TestBindingEscalation: alice may create RoleBindings in team-a and nothing else; she cannot
// bind cluster-admin (or a role with rules she lacks) until she may bind it, and can bind a
// role whose rules she holds.
func TestBindingEscalation(t *testing.T) {
	f := newFixture(t)
	f.admin(t, "roles", "team-a", &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "binder", Namespace: "team-a"},
		Rules: []rbacv1.PolicyRule{rule("create,update,patch,get", rbac.GroupName, "rolebindings")}})
	f.admin(t, "rolebindings", "team-a", &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice-binder", Namespace: "team-a"},
		RoleRef: roleRef("Role", "binder"), Subjects: userSubject("alice")})

	ctx := as(alice, "team-a")
	grab := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "grab", Namespace: "team-a"},
		RoleRef: roleRef("ClusterRole", "cluster-admin"), Subjects: userSubject("alice")}
	_, err := f.roleBindings.Create(ctx, grab.DeepCopy(), &metav1.CreateOptions{})
	wantForbidden(t, "bind cluster-admin", err, `rolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:["*"], Resources:["*"], Verbs:["*"]}
{NonResourceURLs:["*"], Verbs:["*"]}`)
	if _, err := f.raw["rolebindings"].Get(ctx, "grab", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused binding was stored: %v", err)
	}

	// Binding her own role: she holds every rule of it.
	own := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "own", Namespace: "team-a"},
		RoleRef: roleRef("Role", "binder"), Subjects: userSubject("bob")}
	if _, err := f.roleBindings.Create(ctx, own, &metav1.CreateOptions{}); err != nil {
		t.Errorf("binding a role she holds: %v", err)
	}
	// A missing role she may not bind: 404, as kube.
	missing := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "missing", Namespace: "team-a"},
		RoleRef: roleRef("Role", "nope"), Subjects: userSubject("bob")}
	if _, err := f.roleBindings.Create(ctx, missing, &metav1.CreateOptions{}); !apierrors.IsNotFound(err) ||
		!strings.Contains(err.Error(), `roles.rbac.authorization.k8s.io "nope" not found`) {
		t.Errorf("binding a missing role: %v", err)
	}

	// With bind on clusterroles/cluster-admin in team-a she may.
	f.admin(t, "roles", "team-a", &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "bind-admin", Namespace: "team-a"},
		Rules: []rbacv1.PolicyRule{rule("bind", rbac.GroupName, "clusterroles", "cluster-admin")}})
	f.admin(t, "rolebindings", "team-a", &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice-bind-admin", Namespace: "team-a"},
		RoleRef: roleRef("Role", "bind-admin"), Subjects: userSubject("alice")})
	if _, err := f.roleBindings.Create(ctx, grab.DeepCopy(), &metav1.CreateOptions{}); err != nil {
		t.Errorf("bind with the bind verb: %v", err)
	}
	// ... in team-a only: a ClusterRoleBinding is checked cluster-wide.
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "grab"}, RoleRef: roleRef("ClusterRole", "cluster-admin"), Subjects: userSubject("alice")}
	_, err = f.clusterRoleBindings.Create(as(alice, ""), crb, &metav1.CreateOptions{})
	wantForbidden(t, "cluster-wide bind", err, `clusterrolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "alice"`)
}

// TestBindingUpdateEscalation: an update is checked on the object it computes; one changing
// only what the garbage collector writes is not.
func TestBindingUpdateEscalation(t *testing.T) {
	f := newFixture(t)
	f.admin(t, "clusterroles", "", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "binder"},
		Rules: []rbacv1.PolicyRule{rule("get,update,patch", rbac.GroupName, "clusterrolebindings")}})
	f.admin(t, "clusterrolebindings", "", &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice-binder"},
		RoleRef: roleRef("ClusterRole", "binder"), Subjects: userSubject("alice")})
	f.admin(t, "clusterrolebindings", "", &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "admins"},
		RoleRef: roleRef("ClusterRole", "cluster-admin"), Subjects: userSubject("root")})
	ctx := as(alice, "")
	addAlice := updateFunc(func(obj runtime.Object) {
		b := obj.(*rbacv1.ClusterRoleBinding)
		b.Subjects = append(b.Subjects, userSubject("alice")...)
	})
	_, _, err := f.clusterRoleBindings.Update(ctx, "admins", addAlice, false, &metav1.UpdateOptions{})
	wantForbidden(t, "adding herself to cluster-admin", err, "is attempting to grant RBAC permissions not currently held")
	finalizer := updateFunc(func(obj runtime.Object) {
		obj.(*rbacv1.ClusterRoleBinding).Finalizers = []string{"example.com/keep"}
	})
	if _, _, err := f.clusterRoleBindings.Update(ctx, "admins", finalizer, false, &metav1.UpdateOptions{}); err != nil {
		t.Errorf("a finalizer-only update: %v", err)
	}
	obj, _ := f.raw["clusterrolebindings"].Get(ctx, "admins", &metav1.GetOptions{})
	if b := obj.(*rbacv1.ClusterRoleBinding); len(b.Subjects) != 1 || len(b.Finalizers) != 1 {
		t.Errorf("stored binding: %+v", b)
	}
}

// TestRoleEscalation: a role granting delete on databases needs that right or escalate; an
// aggregationRule needs every right; system:masters may do all.
func TestRoleEscalation(t *testing.T) {
	f := newFixture(t)
	f.admin(t, "roles", "team-a", &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "role-writer", Namespace: "team-a"},
		Rules: []rbacv1.PolicyRule{rule("create,update,get", rbac.GroupName, "roles"), rule("get,list", "db.example.com", "databases")}})
	f.admin(t, "rolebindings", "team-a", &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice", Namespace: "team-a"},
		RoleRef: roleRef("Role", "role-writer"), Subjects: userSubject("alice")})
	ctx := as(alice, "team-a")
	deleter := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "deleter", Namespace: "team-a"},
		Rules: []rbacv1.PolicyRule{rule("get,list,delete", "db.example.com", "databases")}}
	_, err := f.roles.Create(ctx, deleter.DeepCopy(), &metav1.CreateOptions{})
	wantForbidden(t, "create a role granting delete", err, `roles.rbac.authorization.k8s.io "deleter" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:["db.example.com"], Resources:["databases"], Verbs:["delete"]}`)
	reader := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "team-a"},
		Rules: []rbacv1.PolicyRule{rule("get", "db.example.com", "databases")}}
	if _, err := f.roles.Create(ctx, reader, &metav1.CreateOptions{}); err != nil {
		t.Errorf("a role within her rights: %v", err)
	}
	widen := updateFunc(func(obj runtime.Object) {
		r := obj.(*rbacv1.Role)
		r.Rules = append(r.Rules, rule("delete,deletecollection", "db.example.com", "databases"))
	})
	_, _, err = f.roles.Update(ctx, "reader", widen, false, &metav1.UpdateOptions{})
	wantForbidden(t, "widen a role", err, `{APIGroups:["db.example.com"], Resources:["databases"], Verbs:["delete" "deletecollection"]}`)
	// In another namespace she holds nothing.
	_, err = f.roles.Create(as(alice, "team-b"), &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "team-b"},
		Rules: []rbacv1.PolicyRule{rule("get", "db.example.com", "databases")}}, &metav1.CreateOptions{})
	wantForbidden(t, "a role in another namespace", err, "not currently held")

	// With escalate on roles she may.
	f.admin(t, "roles", "team-a", &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "escalator", Namespace: "team-a"},
		Rules: []rbacv1.PolicyRule{rule("escalate", rbac.GroupName, "roles")}})
	f.admin(t, "rolebindings", "team-a", &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice-escalates", Namespace: "team-a"},
		RoleRef: roleRef("Role", "escalator"), Subjects: userSubject("alice")})
	if _, err := f.roles.Create(ctx, deleter.DeepCopy(), &metav1.CreateOptions{}); err != nil {
		t.Errorf("create with escalate: %v", err)
	}
	if _, _, err := f.roles.Update(ctx, "reader", widen, false, &metav1.UpdateOptions{}); err != nil {
		t.Errorf("update with escalate: %v", err)
	}

	// ClusterRoles: aggregationRule needs everything, even from a user holding the rules.
	f.admin(t, "clusterroles", "", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "cr-writer"},
		Rules: []rbacv1.PolicyRule{rule("create", rbac.GroupName, "clusterroles")}})
	f.admin(t, "clusterrolebindings", "", &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice-cr"},
		RoleRef: roleRef("ClusterRole", "cr-writer"), Subjects: userSubject("alice")})
	aggregated := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gatherer"}, AggregationRule: &rbacv1.AggregationRule{
		ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"x": "y"}}}}}
	_, err = f.clusterRoles.Create(as(alice, ""), aggregated.DeepCopy(), &metav1.CreateOptions{})
	wantForbidden(t, "aggregationRule", err, `clusterroles.rbac.authorization.k8s.io "gatherer" is forbidden: must have cluster-admin privileges to use the aggregationRule`)
	root := &request.User{Name: "root", Groups: []string{request.SystemPrivilegedGroup, request.AllAuthenticated}}
	if _, err := f.clusterRoles.Create(as(root, ""), aggregated.DeepCopy(), &metav1.CreateOptions{}); err != nil {
		t.Errorf("system:masters: %v", err)
	}
	if _, err := f.roles.Create(context.Background(), deleter.DeepCopy(), &metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("no user: %v, want 403", err)
	}
}

// updateFunc is an update changing the stored object with change.
type updateFunc func(obj runtime.Object)

// UpdatedObject implements rest.UpdatedObjectInfo.
func (f updateFunc) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	obj := old.DeepCopyObject()
	f(obj)
	return obj, nil
}

var _ rest.UpdatedObjectInfo = updateFunc(nil)
