package endpoints_test

import (
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/discovery"
	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
)

func TestDiscovery(t *testing.T) {
	s := newTestServer(t)
	if len(s.discovery) != 2 || s.discovery[0].GroupVersion != "test.apigen.dev/v1" || s.discovery[1].GroupVersion != "test.apigen.dev/v1beta1" {
		t.Fatalf("discovery lists: %+v", s.discovery)
	}
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	// Stored as v1: kube-apiserver's storageVersionHash of test.apigen.dev/v1 and the kind,
	// on the resources only (not on widgets/status).
	want := []metav1.APIResource{
		{Name: "gadgets", SingularName: "gadget", Namespaced: false, Kind: "Gadget", Verbs: all,
			StorageVersionHash: discovery.StorageVersionHash("test.apigen.dev", "v1", "Gadget")},
		{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget", Verbs: all,
			ShortNames: []string{"wd"}, Categories: []string{"all"},
			StorageVersionHash: discovery.StorageVersionHash("test.apigen.dev", "v1", "Widget")},
		{Name: "widgets/status", Namespaced: true, Kind: "Widget", Verbs: []string{"get", "patch", "update"}},
	}
	if diff := cmp.Diff(want, s.discovery[0].APIResources); diff != "" {
		t.Errorf("v1 resources (-want +got):\n%s", diff)
	}
	if s.discovery[0].Kind != "APIResourceList" || s.discovery[0].APIVersion != "v1" {
		t.Errorf("list type: %+v", s.discovery[0].TypeMeta)
	}
}

func TestRouteMetadata(t *testing.T) {
	scheme, err := install.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	// Routes are built without touching storage, so stores over no backend are enough here.
	stores, err := install.NewStores(scheme, &etcd3.StorageFactory{})
	if err != nil {
		t.Fatal(err)
	}
	container := restful.NewContainer()
	if _, err := endpoints.InstallAPIGroup(container, install.NewAPIGroupInfo(scheme, stores)); err != nil {
		t.Fatal(err)
	}
	ops := map[string]string{}
	for _, ws := range container.RegisteredWebServices() {
		if ws.RootPath() != "/apis/test.apigen.dev/v1" {
			continue
		}
		for _, r := range ws.Routes() {
			gvk, ok := r.Metadata["x-kubernetes-group-version-kind"].(metav1.GroupVersionKind)
			if !ok || gvk.Version != "v1" || gvk.Group != "test.apigen.dev" {
				t.Errorf("%s %s: gvk metadata %v", r.Method, r.Path, r.Metadata)
			}
			ops[r.Operation] = r.Method + " " + r.Path + " " + r.Metadata["x-kubernetes-action"].(string)
			if r.Method == "PATCH" && len(r.Consumes) != 4 {
				t.Errorf("PATCH consumes %v", r.Consumes)
			}
		}
	}
	want := map[string]string{
		"listNamespacedWidget":             "GET /apis/test.apigen.dev/v1/namespaces/{namespace}/widgets list",
		"listWidgetForAllNamespaces":       "GET /apis/test.apigen.dev/v1/widgets list",
		"createNamespacedWidget":           "POST /apis/test.apigen.dev/v1/namespaces/{namespace}/widgets post",
		"deletecollectionNamespacedWidget": "DELETE /apis/test.apigen.dev/v1/namespaces/{namespace}/widgets deletecollection",
		"readNamespacedWidget":             "GET /apis/test.apigen.dev/v1/namespaces/{namespace}/widgets/{name} get",
		"replaceNamespacedWidget":          "PUT /apis/test.apigen.dev/v1/namespaces/{namespace}/widgets/{name} put",
		"patchNamespacedWidget":            "PATCH /apis/test.apigen.dev/v1/namespaces/{namespace}/widgets/{name} patch",
		"deleteNamespacedWidget":           "DELETE /apis/test.apigen.dev/v1/namespaces/{namespace}/widgets/{name} delete",
		"readNamespacedWidgetStatus":       "GET /apis/test.apigen.dev/v1/namespaces/{namespace}/widgets/{name}/status get",
		"replaceNamespacedWidgetStatus":    "PUT /apis/test.apigen.dev/v1/namespaces/{namespace}/widgets/{name}/status put",
		"patchNamespacedWidgetStatus":      "PATCH /apis/test.apigen.dev/v1/namespaces/{namespace}/widgets/{name}/status patch",
		"watchNamespacedWidgetList":        "GET /apis/test.apigen.dev/v1/watch/namespaces/{namespace}/widgets watchlist",
		"watchNamespacedWidget":            "GET /apis/test.apigen.dev/v1/watch/namespaces/{namespace}/widgets/{name} watch",
		"watchWidgetListForAllNamespaces":  "GET /apis/test.apigen.dev/v1/watch/widgets watchlist",
		"listGadget":                       "GET /apis/test.apigen.dev/v1/gadgets list",
		"createGadget":                     "POST /apis/test.apigen.dev/v1/gadgets post",
		"deletecollectionGadget":           "DELETE /apis/test.apigen.dev/v1/gadgets deletecollection",
		"readGadget":                       "GET /apis/test.apigen.dev/v1/gadgets/{name} get",
		"replaceGadget":                    "PUT /apis/test.apigen.dev/v1/gadgets/{name} put",
		"patchGadget":                      "PATCH /apis/test.apigen.dev/v1/gadgets/{name} patch",
		"deleteGadget":                     "DELETE /apis/test.apigen.dev/v1/gadgets/{name} delete",
		"watchGadgetList":                  "GET /apis/test.apigen.dev/v1/watch/gadgets watchlist",
		"watchGadget":                      "GET /apis/test.apigen.dev/v1/watch/gadgets/{name} watch",
	}
	if diff := cmp.Diff(want, ops); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
}
