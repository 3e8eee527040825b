package endpoints_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/tableconvertor"
)

// An API whose hub types carry no json tags, the convention of sample-apiserver and of
// Kubernetes' internal packages: only the served version's types name fields in JSON.
var (
	hubGV = schema.GroupVersion{Group: "hub.apigen.dev", Version: runtime.APIVersionInternal}
	thGV  = schema.GroupVersion{Group: "hub.apigen.dev", Version: "v1"}
)

type hubThing struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Spec hubThingSpec
}

type hubThingSpec struct{ Size int32 }

type hubThingList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []hubThing
}

type v1Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              v1ThingSpec `json:"spec"`
}

type v1ThingSpec struct {
	Size int32 `json:"size"`
}

type v1ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []v1Thing `json:"items"`
}

func (in *hubThing) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (in *hubThingList) DeepCopyObject() runtime.Object {
	out := &hubThingList{TypeMeta: in.TypeMeta, ListMeta: *in.ListMeta.DeepCopy()}
	for i := range in.Items {
		out.Items = append(out.Items, *in.Items[i].DeepCopyObject().(*hubThing))
	}
	return out
}

func (in *v1Thing) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (in *v1ThingList) DeepCopyObject() runtime.Object {
	out := &v1ThingList{TypeMeta: in.TypeMeta, ListMeta: *in.ListMeta.DeepCopy()}
	for i := range in.Items {
		out.Items = append(out.Items, *in.Items[i].DeepCopyObject().(*v1Thing))
	}
	return out
}

// hubThingScheme registers both versions and their conversions.
func hubThingScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(hubGV.WithKind("Thing"), &hubThing{})
	s.AddKnownTypeWithName(hubGV.WithKind("ThingList"), &hubThingList{})
	s.AddKnownTypeWithName(thGV.WithKind("Thing"), &v1Thing{})
	s.AddKnownTypeWithName(thGV.WithKind("ThingList"), &v1ThingList{})
	metav1.AddToGroupVersion(s, thGV)
	toV1 := func(in *hubThing, out *v1Thing) { out.ObjectMeta, out.Spec.Size = in.ObjectMeta, in.Spec.Size }
	toHub := func(in *v1Thing, out *hubThing) { out.ObjectMeta, out.Spec.Size = in.ObjectMeta, in.Spec.Size }
	for _, err := range []error{
		s.AddConversionFunc((*hubThing)(nil), (*v1Thing)(nil), func(a, b any, _ conversion.Scope) error {
			toV1(a.(*hubThing), b.(*v1Thing))
			return nil
		}),
		s.AddConversionFunc((*v1Thing)(nil), (*hubThing)(nil), func(a, b any, _ conversion.Scope) error {
			toHub(a.(*v1Thing), b.(*hubThing))
			return nil
		}),
		s.AddConversionFunc((*hubThingList)(nil), (*v1ThingList)(nil), func(a, b any, _ conversion.Scope) error {
			in, out := a.(*hubThingList), b.(*v1ThingList)
			out.ListMeta, out.Items = in.ListMeta, make([]v1Thing, len(in.Items))
			for i := range in.Items {
				toV1(&in.Items[i], &out.Items[i])
			}
			return nil
		}),
		s.AddConversionFunc((*v1ThingList)(nil), (*hubThingList)(nil), func(a, b any, _ conversion.Scope) error {
			in, out := a.(*v1ThingList), b.(*hubThingList)
			out.ListMeta, out.Items = in.ListMeta, make([]hubThing, len(in.Items))
			for i := range in.Items {
				toHub(&in.Items[i], &out.Items[i])
			}
			return nil
		}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// hubThingStrategy accepts everything.
type hubThingStrategy struct{}

func (hubThingStrategy) NamespaceScoped() bool                                        { return false }
func (hubThingStrategy) PrepareForCreate(_ context.Context, _ runtime.Object)         {}
func (hubThingStrategy) PrepareForUpdate(_ context.Context, _, _ runtime.Object)      {}
func (hubThingStrategy) Validate(_ context.Context, _ runtime.Object) field.ErrorList { return nil }
func (hubThingStrategy) ValidateUpdate(_ context.Context, _, _ runtime.Object) field.ErrorList {
	return nil
}

// TestTableOfHubWithoutJSONTags lists and gets Things as kubectl get does: the custom column
// (.spec.size) and AGE are evaluated on the object in the request's version, so they are
// filled although the hub type has no json tags.
func TestTableOfHubWithoutJSONTags(t *testing.T) {
	client, _ := etcdtest.Run(t)
	scheme := hubThingScheme(t)
	tc, err := tableconvertor.New([]tableconvertor.Column{{Name: "Size", Type: "integer", JSONPath: ".spec.size"}})
	if err != nil {
		t.Fatal(err)
	}
	store := &registry.Store{
		NewFunc: func() runtime.Object { return &hubThing{} }, NewListFunc: func() runtime.Object { return &hubThingList{} },
		DefaultQualifiedResource:  schema.GroupResource{Group: thGV.Group, Resource: "things"},
		SingularQualifiedResource: schema.GroupResource{Group: thGV.Group, Resource: "thing"},
		Strategy:                  hubThingStrategy{}, TableConvertor: tc,
	}
	if store.Storage, err = (&etcd3.StorageFactory{Client: client, Prefix: "/registry"}).NewStorage(
		store.DefaultQualifiedResource, thGV, scheme, store.NewFunc); err != nil {
		t.Fatal(err)
	}
	container := restful.NewContainer()
	container.ServiceErrorHandler(responsewriters.ServiceErrorHandler)
	if _, err := endpoints.InstallAPIGroup(container, &registry.APIGroupInfo{Group: thGV.Group,
		PrioritizedVersions:          []schema.GroupVersion{thGV},
		VersionedResourcesStorageMap: map[string]map[string]rest.Storage{"v1": {"things": store}}, Scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(container)
	t.Cleanup(ts.Close)
	s := &testServer{url: ts.URL}
	s.expect(t, request{method: "POST", path: "/apis/hub.apigen.dev/v1/things",
		body: `{"apiVersion":"hub.apigen.dev/v1","kind":"Thing","metadata":{"name":"big"},"spec":{"size":7}}`}, http.StatusCreated, nil)
	for _, path := range []string{"/apis/hub.apigen.dev/v1/things", "/apis/hub.apigen.dev/v1/things/big"} {
		var table metav1.Table
		s.expect(t, request{method: "GET", path: path, accept: kubectlTableAccept}, http.StatusOK, &table)
		if len(table.Rows) != 1 || len(table.Rows[0].Cells) != 3 {
			t.Fatalf("GET %s: table %+v", path, table)
		}
		cells := table.Rows[0].Cells
		if cells[0] != "big" || cells[1] != float64(7) || cells[2] == nil || cells[2] == "<unknown>" {
			t.Errorf("GET %s: cells %v, want big, 7 and an age", path, cells)
		}
	}
}
