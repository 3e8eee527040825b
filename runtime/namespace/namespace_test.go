package namespace

import (
	"context"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	coreinstall "github.com/apigen-dev/apigen/runtime/apis/core/v1/install"
	rbacv1 "github.com/apigen-dev/apigen/runtime/apis/rbac/v1"
	rbacinstall "github.com/apigen-dev/apigen/runtime/apis/rbac/v1/install"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// fixture is the namespaces storage and the RBAC group (namespaced roles: content to delete)
// over a fresh embedded etcd.
type fixture struct {
	rest     *REST
	status   *registry.StatusStore
	finalize *FinalizeREST
	rbac     *registry.APIGroupInfo
	roles    *registry.Store
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	client, _ := etcdtest.Run(t)
	scheme := runtime.NewScheme()
	factory := &etcd3.StorageFactory{Client: client, Prefix: "/registry"}
	core, err := coreinstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		t.Fatal(err)
	}
	rbac, err := rbacinstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		t.Fatal(err)
	}
	r, status, f := NewREST(core.VersionedResourcesStorageMap["v1"]["namespaces"].(*registry.Store))
	return &fixture{rest: r, status: status, finalize: f, rbac: rbac, roles: rbac.VersionedResourcesStorageMap["v1"]["roles"].(*registry.Store)}
}

func (f *fixture) create(t *testing.T, name string) *corev1.Namespace {
	t.Helper()
	obj, err := f.rest.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*corev1.Namespace)
}

func (f *fixture) get(t *testing.T, name string) (*corev1.Namespace, error) {
	t.Helper()
	obj, err := f.rest.Get(context.Background(), name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Namespace), nil
}

func TestCreateIsActiveWithTheKubernetesFinalizer(t *testing.T) {
	f := newFixture(t)
	ns := f.create(t, "team-a")
	if ns.Status.Phase != corev1.NamespaceActive || !slices.Equal(ns.Spec.Finalizers, []corev1.FinalizerName{"kubernetes"}) ||
		ns.Labels[LabelMetadataName] != "team-a" {
		t.Errorf("created namespace: phase %q, finalizers %v, labels %v", ns.Status.Phase, ns.Spec.Finalizers, ns.Labels)
	}
	// An update may change neither spec.finalizers nor status.
	_, _, err := f.rest.Update(context.Background(), "team-a", updateFunc(func(ns *corev1.Namespace) {
		ns.Spec.Finalizers, ns.Status.Phase, ns.Labels = nil, corev1.NamespaceTerminating, map[string]string{"a": "b", LabelMetadataName: "x"}
	}), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := f.get(t, "team-a")
	if got.Status.Phase != corev1.NamespaceActive || len(got.Spec.Finalizers) != 1 || got.Labels["a"] != "b" || got.Labels[LabelMetadataName] != "team-a" {
		t.Errorf("after update: phase %q, finalizers %v, labels %v", got.Status.Phase, got.Spec.Finalizers, got.Labels)
	}
	// Names are DNS-1123 labels.
	_, err = f.rest.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a.b"}}, nil)
	if !apierrors.IsInvalid(err) {
		t.Errorf("create a.b: want 422 Invalid, got %v", err)
	}
}

func TestDeleteTerminatesThenFinalizeRemoves(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.create(t, "team-a")
	obj, deleted, err := f.rest.Delete(ctx, "team-a", &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || deleted || obj.(*corev1.Namespace).Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("dry-run delete: %v deleted=%v err=%v", obj, deleted, err)
	}
	if ns, _ := f.get(t, "team-a"); ns.DeletionTimestamp != nil || ns.Status.Phase != corev1.NamespaceActive {
		t.Fatalf("after a dry-run delete: %+v", ns)
	}
	obj, deleted, err = f.rest.Delete(ctx, "team-a", nil)
	if err != nil || deleted {
		t.Fatalf("first delete: deleted=%v err=%v", deleted, err)
	}
	ns := obj.(*corev1.Namespace)
	if ns.DeletionTimestamp == nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("first delete returned %+v", ns)
	}
	again, deleted, err := f.rest.Delete(ctx, "team-a", nil)
	if err != nil || deleted || again.(*corev1.Namespace).ResourceVersion != ns.ResourceVersion {
		t.Fatalf("second delete: deleted=%v err=%v, want a no-op", deleted, err)
	}
	// An update of a terminating namespace (no metadata.finalizers) keeps it: spec.finalizers remain.
	if _, _, err := f.rest.Update(ctx, "team-a", updateFunc(func(ns *corev1.Namespace) { ns.Labels = map[string]string{"a": "b"} }), false, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := f.get(t, "team-a"); err != nil || got.Labels["a"] != "b" {
		t.Fatalf("after a label update while terminating: %v %v", got, err)
	}
	// A stale resourceVersion on finalize is a conflict.
	stale := updateFunc(func(ns *corev1.Namespace) { ns.ResourceVersion = "1"; ns.Spec.Finalizers = nil })
	if _, _, err := f.finalize.Update(ctx, "team-a", stale, false, nil); !apierrors.IsConflict(err) {
		t.Errorf("finalize with a stale resourceVersion: want 409, got %v", err)
	}
	// Finalize changes spec.finalizers only, and removes the namespace once none is left.
	_, _, err = f.finalize.Update(ctx, "team-a", updateFunc(func(ns *corev1.Namespace) {
		ns.Spec.Finalizers, ns.Labels = nil, map[string]string{"sneaky": "true"}
	}), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.get(t, "team-a"); !apierrors.IsNotFound(err) {
		t.Errorf("after finalize: want NotFound, got %v", err)
	}
}

func TestDeleteWithoutFinalizersRemoves(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.create(t, "team-a")
	if _, _, err := f.finalize.Update(ctx, "team-a", updateFunc(func(ns *corev1.Namespace) { ns.Spec.Finalizers = nil }), false, nil); err != nil {
		t.Fatal(err)
	}
	if _, deleted, err := f.rest.Delete(ctx, "team-a", nil); err != nil || !deleted {
		t.Fatalf("delete: deleted=%v err=%v", deleted, err)
	}
	if _, err := f.get(t, "team-a"); !apierrors.IsNotFound(err) {
		t.Errorf("want NotFound, got %v", err)
	}
	if _, _, err := f.rest.Delete(ctx, "team-a", nil); !apierrors.IsNotFound(err) {
		t.Errorf("delete of a missing namespace: want NotFound, got %v", err)
	}
}

func TestControllerDeletesContentThenNamespace(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f.create(t, "team-a")
	f.create(t, "team-b")
	for _, r := range []struct{ ns, name string }{{"team-a", "plain"}, {"team-a", "held"}, {"team-b", "other"}} {
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: r.name}}
		if r.name == "held" {
			role.Finalizers = []string{"example.com/hold"}
		}
		if _, err := f.roles.Create(request.WithNamespace(ctx, r.ns), role, nil); err != nil {
			t.Fatal(err)
		}
	}
	c := NewController(f.rest, f.status, f.finalize, nil)
	c.RetryInterval = 50 * time.Millisecond
	c.AddContentDeleter(NewGroupContentDeleter(f.rbac))
	go c.Run(ctx)
	if _, _, err := f.rest.Delete(ctx, "team-a", nil); err != nil {
		t.Fatal(err)
	}
	teamA := request.WithNamespace(ctx, "team-a")
	eventually(t, func() bool {
		_, err := f.roles.Get(teamA, "plain", &metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, "role plain deleted")
	held, err := f.roles.Get(teamA, "held", &metav1.GetOptions{})
	if err != nil || held.(*rbacv1.Role).DeletionTimestamp == nil {
		t.Fatalf("role held: want it marked deleted, got %v", err)
	}
	eventually(t, func() bool {
		ns, err := f.get(t, "team-a")
		if err != nil || ns.Status.Phase != corev1.NamespaceTerminating {
			t.Fatalf("team-a while content remains: %v %v", ns, err)
		}
		for _, c := range ns.Status.Conditions {
			if c.Type == corev1.NamespaceContentRemaining {
				return c.Status == metav1.ConditionTrue && c.Message == "Some resources are remaining: 1 resource instances"
			}
		}
		return false
	}, "condition NamespaceContentRemaining=True")
	_, _, err = f.roles.Update(teamA, "held", updateRole(func(r *rbacv1.Role) { r.Finalizers = nil }), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		_, err := f.get(t, "team-a")
		return apierrors.IsNotFound(err)
	}, "namespace team-a removed")
	if _, err := f.roles.Get(request.WithNamespace(ctx, "team-b"), "other", &metav1.GetOptions{}); err != nil {
		t.Errorf("the role of team-b: %v", err)
	}
}

func TestEnsureNamespacesIsIdempotent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for range 2 {
		if err := EnsureNamespaces(ctx, f.rest, SystemNamespaces...); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range SystemNamespaces {
		if ns, err := f.get(t, name); err != nil || ns.Status.Phase != corev1.NamespaceActive {
			t.Errorf("%s: %v %v", name, ns, err)
		}
	}
}

// updateFunc is a rest.UpdatedObjectInfo changing the stored namespace with change.
type updateFunc func(*corev1.Namespace)

func (u updateFunc) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	ns := old.DeepCopyObject().(*corev1.Namespace)
	u(ns)
	return ns, nil
}

// updateRole is a rest.UpdatedObjectInfo changing the stored role with change.
type updateRole func(*rbacv1.Role)

func (u updateRole) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	r := old.DeepCopyObject().(*rbacv1.Role)
	u(r)
	return r, nil
}

// eventually polls cond every 20ms for up to 10s.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStatusPhaseFollowsDeletionTimestamp(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.create(t, "team-a")
	terminating := updateFunc(func(ns *corev1.Namespace) { ns.Status.Phase = corev1.NamespaceTerminating })
	if _, _, err := f.status.Update(ctx, "team-a", terminating, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("Terminating without deletionTimestamp: want 422, got %v", err)
	}
	conditions := updateFunc(func(ns *corev1.Namespace) {
		ns.Spec.Finalizers = nil
		ns.Status.Conditions = []corev1.NamespaceCondition{{Type: corev1.NamespaceContentRemaining, Status: metav1.ConditionFalse}}
	})
	obj, _, err := f.status.Update(ctx, "team-a", conditions, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ns := obj.(*corev1.Namespace); len(ns.Status.Conditions) != 1 || len(ns.Spec.Finalizers) != 1 {
		t.Errorf("status update: conditions %v, finalizers %v", ns.Status.Conditions, ns.Spec.Finalizers)
	}
}

// TestGroupContentDeleterFollowsVerbs checks that a resource whose group does not allow
// deletecollection on it (APIGroupInfo.Verbs, as a read-only computed resource's) is left
// alone and not counted, as kube's namespace controller skips what discovery says it cannot
// delete, while the same resource serving every verb is emptied.
func TestGroupContentDeleterFollowsVerbs(t *testing.T) {
	f := newFixture(t)
	ctx := request.WithNamespace(context.Background(), "team-v")
	if _, err := f.roles.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}, nil); err != nil {
		t.Fatal(err)
	}
	readOnly := *f.rbac
	readOnly.Verbs = map[string]map[string][]string{}
	for _, gv := range f.rbac.PrioritizedVersions {
		readOnly.Verbs[gv.Version] = map[string][]string{"roles": {"get", "list", "watch"}}
	}
	if left, err := NewGroupContentDeleter(&readOnly).DeleteNamespaceContent(ctx, "team-v"); err != nil || left != 0 {
		t.Fatalf("read-only roles: DeleteNamespaceContent = %d, %v; want 0, nil", left, err)
	}
	if _, err := f.roles.Get(ctx, "kept", &metav1.GetOptions{}); err != nil {
		t.Fatalf("read-only roles: role kept: %v", err)
	}
	if _, err := NewGroupContentDeleter(f.rbac).DeleteNamespaceContent(ctx, "team-v"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.roles.Get(ctx, "kept", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("roles serving every verb: role kept: %v, want NotFound", err)
	}
}
