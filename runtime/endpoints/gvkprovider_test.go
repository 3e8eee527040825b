package endpoints_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/endpoints"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// newScaleServer serves the test group with widgets/scale in v1, a storage that declares
// its wire kind (autoscaling/v1 Scale) through rest.GroupVersionKindProvider.
func newScaleServer(t *testing.T) (*testServer, *restful.Container) {
	t.Helper()
	client, _ := etcdtest.Run(t)
	scheme, err := install.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	if err := autoscalingv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	stores, err := install.NewStores(scheme, &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	scale, err := registry.NewScaleStore(stores.Widgets, registry.ScaleSpec{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".spec.size"})
	if err != nil {
		t.Fatal(err)
	}
	info := install.NewAPIGroupInfo(scheme, stores)
	info.VersionedResourcesStorageMap["v1"]["widgets/scale"] = scale
	container := restful.NewContainer()
	container.ServiceErrorHandler(responsewriters.ServiceErrorHandler)
	lists, err := endpoints.InstallAPIGroup(container, info)
	if err != nil {
		t.Fatalf("InstallAPIGroup: %v", err)
	}
	ts := httptest.NewServer(container)
	t.Cleanup(ts.Close)
	return &testServer{url: ts.URL, discovery: lists}, container
}

func TestGroupVersionKindProviderDiscoveryAndRoutes(t *testing.T) {
	s, container := newScaleServer(t)
	var entry *metav1.APIResource
	for _, list := range s.discovery {
		for i, r := range list.APIResources {
			if list.GroupVersion == "test.apigen.dev/v1" && r.Name == "widgets/scale" {
				entry = &list.APIResources[i]
			}
		}
	}
	if entry == nil || entry.Group != "autoscaling" || entry.Version != "v1" || entry.Kind != "Scale" || !entry.Namespaced {
		t.Errorf("discovery of widgets/scale: %+v, want autoscaling/v1 Scale", entry)
	}
	ops := map[string]bool{}
	for _, ws := range container.RegisteredWebServices() {
		for _, r := range ws.Routes() {
			ops[r.Operation] = true
		}
	}
	for _, op := range []string{"readNamespacedWidgetScale", "replaceNamespacedWidgetScale", "patchNamespacedWidgetScale", "readNamespacedWidget"} {
		if !ops[op] {
			t.Errorf("no route named %s", op)
		}
	}
}

func TestGroupVersionKindProviderWire(t *testing.T) {
	s, _ := newScaleServer(t)
	s.expect(t, request{method: http.MethodPost, path: widgets, body: widgetJSON("w", 3, "red")}, http.StatusCreated, nil)
	path := widgets + "/w/scale"

	var scale autoscalingv1.Scale
	s.expect(t, request{method: http.MethodGet, path: path}, http.StatusOK, &scale)
	if scale.Kind != "Scale" || scale.APIVersion != "autoscaling/v1" || scale.Name != "w" || scale.Spec.Replicas != 3 {
		t.Fatalf("GET scale: %+v", scale)
	}

	body := `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w","resourceVersion":"` + scale.ResourceVersion + `"},"spec":{"replicas":5}}`
	var updated autoscalingv1.Scale
	s.expect(t, request{method: http.MethodPut, path: path, body: body}, http.StatusOK, &updated)
	if updated.APIVersion != "autoscaling/v1" || updated.Spec.Replicas != 5 {
		t.Errorf("PUT scale: %+v", updated)
	}
	s.expectStatus(t, request{method: http.MethodPut, path: path, body: body}, http.StatusConflict, metav1.StatusReasonConflict,
		"the object has been modified")
	s.expectStatus(t, request{method: http.MethodPut, path: path,
		body: widgetJSON("w", 5, "red")}, http.StatusBadRequest, metav1.StatusReasonBadRequest,
		"does not match the expected API version (autoscaling/v1)")

	var patched autoscalingv1.Scale
	s.expect(t, request{method: http.MethodPatch, path: path, contentType: "application/merge-patch+json", body: `{"spec":{"replicas":6}}`},
		http.StatusOK, &patched)
	if patched.Spec.Replicas != 6 {
		t.Errorf("PATCH scale: %+v", patched)
	}
	s.expect(t, request{method: http.MethodPatch, path: path, contentType: "application/strategic-merge-patch+json", body: `{"spec":{"replicas":7}}`},
		http.StatusOK, &patched)

	var widget struct {
		APIVersion string `json:"apiVersion"`
		Spec       struct {
			Size  int    `json:"size"`
			Color string `json:"color"`
		} `json:"spec"`
	}
	s.expect(t, request{method: http.MethodGet, path: widgets + "/w"}, http.StatusOK, &widget)
	if widget.APIVersion != "test.apigen.dev/v1" || widget.Spec.Size != 7 || widget.Spec.Color != "red" {
		t.Errorf("widget after scaling: %+v", widget)
	}
}
