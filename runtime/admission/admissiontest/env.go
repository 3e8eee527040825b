package admissiontest

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/versioned"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	admreginstall "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1/install"
	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	coreinstall "github.com/apigen-dev/apigen/runtime/apis/core/v1/install"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// The Widget resources of an Env: the same objects in v1 and v2.
var (
	WidgetsV1 = testapi.SchemeGroupVersion.WithResource("widgets")
	WidgetsV2 = schema.GroupVersionResource{Group: testapi.SchemeGroupVersion.Group, Version: "v2", Resource: "widgets"}
)

// Env is a server's worth of storage for admission plugins. Ctx ends with the test.
type Env struct {
	Scheme     *runtime.Scheme
	Resources  *versioned.Resources
	Configs    map[string]rest.Storage // admissionregistration.k8s.io/v1 by resource
	Namespaces *registry.Store
	Widgets    *registry.Store
	Ctx        context.Context
}

// New starts an embedded etcd for t (a test or benchmark) and builds the stores.
func New(t testing.TB) *Env {
	t.Helper()
	client, _ := etcdtest.Run(t)
	scheme := runtime.NewScheme()
	for _, gv := range []schema.GroupVersion{WidgetsV1.GroupVersion(), WidgetsV2.GroupVersion(), {Group: WidgetsV1.Group, Version: runtime.APIVersionInternal}} {
		scheme.AddKnownTypes(gv, &testapi.Widget{}, &testapi.WidgetList{})
		if gv.Version != runtime.APIVersionInternal {
			metav1.AddToGroupVersion(scheme, gv)
		}
	}
	factory := &etcd3.StorageFactory{Client: client, Prefix: "/registry"}
	reg, err := admreginstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		t.Fatal(err)
	}
	core, err := coreinstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		t.Fatal(err)
	}
	st, err := factory.NewStorage(WidgetsV1.GroupResource(), WidgetsV1.GroupVersion(), scheme, testapi.NewWidget)
	if err != nil {
		t.Fatal(err)
	}
	widgets := &registry.Store{NewFunc: testapi.NewWidget, NewListFunc: testapi.NewWidgetList, Strategy: widgetStrategy{},
		DefaultQualifiedResource: WidgetsV1.GroupResource(), SingularQualifiedResource: schema.GroupResource{Group: WidgetsV1.Group, Resource: "widget"}, Storage: st}
	info := &registry.APIGroupInfo{Group: WidgetsV1.Group, PrioritizedVersions: []schema.GroupVersion{WidgetsV1.GroupVersion(), WidgetsV2.GroupVersion()},
		VersionedResourcesStorageMap: map[string]map[string]rest.Storage{"v1": {"widgets": widgets}, "v2": {"widgets": widgets}}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &Env{Scheme: scheme, Resources: versioned.NewResources(scheme, info), Configs: reg.VersionedResourcesStorageMap["v1"],
		Namespaces: core.VersionedResourcesStorageMap["v1"]["namespaces"].(*registry.Store), Widgets: widgets, Ctx: ctx}
}

// widgetStrategy accepts every Widget as is.
type widgetStrategy struct{}

func (widgetStrategy) NamespaceScoped() bool                                            { return true }
func (widgetStrategy) PrepareForCreate(context.Context, runtime.Object)                 {}
func (widgetStrategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}
func (widgetStrategy) Validate(context.Context, runtime.Object) field.ErrorList         { return nil }
func (widgetStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// Lister is the server's SetListers argument: the configurations, namespaces and widgets.
func (e *Env) Lister(gr schema.GroupResource) rest.Lister {
	switch {
	case gr.Group == admregv1.SchemeGroupVersion.Group:
		l, _ := e.Configs[gr.Resource].(rest.Lister)
		return l
	case gr == schema.GroupResource{Resource: "namespaces"}:
		return e.Namespaces
	case gr == WidgetsV1.GroupResource():
		return e.Widgets
	}
	return nil
}

// Start initialises p as the server does (listers, scheme and resources, an authorizer
// allowing everything) and runs its caches until the test ends.
func (e *Env) Start(p admission.Interface) {
	if w, ok := p.(admission.WantsListers); ok {
		w.SetListers(e.Lister)
	}
	if w, ok := p.(admission.WantsScheme); ok {
		w.SetScheme(e.Scheme, e.Resources)
	}
	if r, ok := p.(admission.CacheRunner); ok {
		go r.RunCaches(e.Ctx)
	}
}

// Create defaults obj and creates it: in resource of admissionregistration.k8s.io, or a
// Namespace, or a Widget in namespace ns.
func (e *Env) Create(t *testing.T, resource string, obj runtime.Object) {
	t.Helper()
	e.Scheme.Default(obj)
	var s rest.Storage = e.Configs[resource]
	ctx := e.Ctx
	switch o := obj.(type) {
	case *corev1.Namespace:
		s = e.Namespaces
	case *testapi.Widget:
		s, ctx = e.Widgets, request.WithNamespace(ctx, o.Namespace)
	}
	if _, err := s.(rest.Creater).Create(ctx, obj, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Namespace creates namespace name with labels.
func (e *Env) Namespace(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	e.Create(t, "", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})
}

// WaitFor polls cond every 10ms until it holds, failing the test after 10s (a watch event
// on a loaded machine).
func WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WidgetAttrs is a request for a Widget in namespace ns by alice (group devs), as the
// registry describes it: obj the new object (nil on delete), old the stored one (nil on
// create).
func WidgetAttrs(op admission.Operation, ns string, obj, old *testapi.Widget) *admission.Attributes {
	a := &admission.Attributes{Operation: op, Kind: WidgetsV1.GroupVersion().WithKind("Widget"), Resource: WidgetsV1,
		Namespace: ns, User: &request.User{Name: "alice", Groups: []string{"devs"}}}
	if obj != nil {
		a.Object, a.Name = obj, obj.Name
	}
	if old != nil {
		a.OldObject, a.Name = old, old.Name
	}
	return a
}

// WidgetRule matches every operation on widgets of version.
func WidgetRule(version string) []admregv1.RuleWithOperations {
	return []admregv1.RuleWithOperations{{Operations: []admregv1.OperationType{admregv1.OperationAll},
		Rule: admregv1.Rule{APIGroups: []string{WidgetsV1.Group}, APIVersions: []string{version}, Resources: []string{"widgets"}}}}
}

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }
