package garbagecollector

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/metrics"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// waitLimit bounds every wait for the collector: generous, for a loaded 2-core machine.
const waitLimit = 60 * time.Second

// recordedEvent is one event a test's recorder received.
type recordedEvent struct {
	object, reason, message string
}

// events records the collector's events.
type events struct {
	mu   sync.Mutex
	list []recordedEvent
}

func (e *events) Eventf(object runtime.Object, _, reason, messageFmt string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ref := object.(*corev1.ObjectReference)
	e.list = append(e.list, recordedEvent{object: ref.Kind + " " + ref.Namespace + "/" + ref.Name, reason: reason,
		message: fmt.Sprintf(messageFmt, args...)})
}

func (e *events) snapshot() []recordedEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

// newTestGroup starts etcd and builds the test group (namespaced Widgets, cluster-scoped
// Gadgets) over it.
func newTestGroup(tb testing.TB) (*clientv3.Client, *install.Stores, *registry.APIGroupInfo) {
	tb.Helper()
	client, _ := etcdtest.Run(tb)
	scheme, err := install.NewScheme()
	if err != nil {
		tb.Fatal(err)
	}
	stores, err := install.NewStores(scheme, &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		tb.Fatal(err)
	}
	return client, stores, install.NewAPIGroupInfo(scheme, stores)
}

// fixture is the test group's stores over a real etcd and a running collector watching them.
type fixture struct {
	stores  *install.Stores
	gc      *GarbageCollector
	events  *events
	metrics *metrics.Metrics
	stop    func()
}

// newFixture starts etcd, builds the test group and runs a collector over source (nil: the
// whole group) until the test ends.
func newFixture(t *testing.T, source func(*install.Stores, *registry.APIGroupInfo) Source) *fixture {
	t.Helper()
	_, stores, info := newTestGroup(t)
	var src Source = SourceFunc(func() []Resource { return APIGroupResources(info) })
	if source != nil {
		src = source(stores, info)
	}
	f := &fixture{stores: stores, events: &events{}, metrics: metrics.New()}
	f.gc = New(Config{Sources: []Source{src}, Events: f.events, Metrics: f.metrics, Workers: 4})
	f.start(t)
	return f
}

// start runs the collector until the test ends or stop is called, and waits until it has synced.
func (f *fixture) start(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.gc.Run(ctx) }()
	var once sync.Once
	f.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(f.stop)
	waitFor(t, "the collector to sync", f.gc.IsSynced)
}

// waitFor polls cond until it holds, failing the test after waitLimit.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ns(namespace string) context.Context {
	return request.WithNamespace(context.Background(), namespace)
}

func ownerRef(kind, name string, uid types.UID, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "test.apigen.dev/v1", Kind: kind, Name: name, UID: uid, BlockOwnerDeletion: &block}
}

// widget creates a Widget in namespace with owners and finalizers.
func (f *fixture) widget(t *testing.T, namespace, name string, finalizers []string, owners ...metav1.OwnerReference) *testapi.Widget {
	t.Helper()
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners, Finalizers: finalizers},
		Spec: testapi.WidgetSpec{Size: 1, Color: "red"}}
	out, err := f.stores.Widgets.Create(ns(namespace), w, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create widget %s/%s: %v", namespace, name, err)
	}
	return out.(*testapi.Widget)
}

// gadget creates a cluster-scoped Gadget with owners.
func (f *fixture) gadget(t *testing.T, name string, owners ...metav1.OwnerReference) *testapi.Gadget {
	t.Helper()
	g := &testapi.Gadget{ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners}, Spec: testapi.GadgetSpec{Owner: "team"}}
	out, err := f.stores.Gadgets.Create(ns(""), g, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create gadget %s: %v", name, err)
	}
	return out.(*testapi.Gadget)
}

// getWidget returns the widget, or nil when it does not exist.
func (f *fixture) getWidget(t *testing.T, namespace, name string) *testapi.Widget {
	t.Helper()
	obj, err := f.stores.Widgets.Get(ns(namespace), name, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*testapi.Widget)
}

func (f *fixture) gadgetExists(t *testing.T, name string) bool {
	t.Helper()
	_, err := f.stores.Gadgets.Get(ns(""), name, &metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

func (f *fixture) deleteWidget(t *testing.T, namespace, name string, policy metav1.DeletionPropagation) {
	t.Helper()
	if _, _, err := f.stores.Widgets.Delete(ns(namespace), name, &metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		t.Fatalf("delete widget %s/%s: %v", namespace, name, err)
	}
}

// removeFinalizers empties the widget's finalizers.
func (f *fixture) removeFinalizers(t *testing.T, namespace, name string) {
	t.Helper()
	if _, _, err := f.stores.Widgets.Update(ns(namespace), name, setFinalizers(nil), false, nil); err != nil {
		t.Fatalf("remove the finalizers of %s/%s: %v", namespace, name, err)
	}
}

type setFinalizers []string

func (s setFinalizers) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	old.(*testapi.Widget).Finalizers = s
	return old, nil
}

// deleters is an admission plugin recording who deletes widgets.
type deleters struct {
	mu    sync.Mutex
	users map[string]bool
}

func (d *deleters) Handles(op admission.Operation) bool { return op == admission.Delete }

func (d *deleters) Validate(_ context.Context, a *admission.Attributes) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a.User != nil {
		d.users[a.User.Name] = true
	}
	return nil
}

func (d *deleters) saw(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.users[name]
}

// TestBackgroundDeletion: deleting an owner (namespaced or cluster-scoped) deletes its
// dependents, theirs in turn, and not the dependents of another owner; a dependent with two
// owners stays while one is left, losing its reference to the one that went. Admission sees
// the collector's deletes as made by kube's generic-garbage-collector service account.
func TestBackgroundDeletion(t *testing.T) {
	f := newFixture(t, nil)
	seen := &deleters{users: map[string]bool{}}
	var plugins admission.Plugins
	if err := plugins.Register("Deleters", true, func() (admission.Interface, error) { return seen, nil }); err != nil {
		t.Fatal(err)
	}
	chain, err := plugins.NewChain(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.stores.Widgets.Admission = chain
	owner := f.widget(t, "a", "owner", nil)
	other := f.widget(t, "a", "other", nil)
	ref := ownerRef("Widget", "owner", owner.UID, false)
	child := f.widget(t, "a", "child", nil, ref)
	f.widget(t, "a", "grandchild", nil, ownerRef("Widget", "child", child.UID, false))
	f.widget(t, "a", "shared", nil, ref, ownerRef("Widget", "other", other.UID, false))
	f.widget(t, "a", "unrelated", nil, ownerRef("Widget", "other", other.UID, false))
	g := f.gadget(t, "cluster-owner")
	f.widget(t, "b", "of-gadget", nil, ownerRef("Gadget", "cluster-owner", g.UID, false))

	f.deleteWidget(t, "a", "owner", metav1.DeletePropagationBackground)
	waitFor(t, "the owner's dependents to go", func() bool {
		return f.getWidget(t, "a", "child") == nil && f.getWidget(t, "a", "grandchild") == nil
	})
	waitFor(t, "the shared dependent to lose its reference to the owner", func() bool {
		s := f.getWidget(t, "a", "shared")
		return s != nil && len(s.OwnerReferences) == 1 && s.OwnerReferences[0].UID == other.UID
	})
	if _, _, err := f.stores.Gadgets.Delete(ns(""), "cluster-owner", &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the namespaced dependent of a cluster-scoped owner to go", func() bool { return f.getWidget(t, "b", "of-gadget") == nil })
	if f.getWidget(t, "a", "unrelated") == nil || f.getWidget(t, "a", "other") == nil {
		t.Error("the collector deleted objects whose owner exists")
	}
	if !seen.saw("system:serviceaccount:kube-system:generic-garbage-collector") {
		t.Error("admission did not see the collector's deletes as generic-garbage-collector's")
	}
	adds := f.metrics.WorkqueueMetricsProvider().NewAddsMetric(attemptToDeleteQueue).(prometheus.Counter)
	if n := testutil.ToFloat64(adds); n < 3 {
		t.Errorf("workqueue_adds_total{name=%q} = %v, want at least the 3 collected objects", attemptToDeleteQueue, n)
	}
}
