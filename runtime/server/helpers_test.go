package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// fakeGroup is test.apigen.dev with no storage: its routes are made by fakeInstaller.
func fakeGroup() *registry.APIGroupInfo {
	return &registry.APIGroupInfo{
		Group:               testapi.SchemeGroupVersion.Group,
		PrioritizedVersions: []schema.GroupVersion{testapi.SchemeGroupVersion},
		Scheme:              testapi.NewScheme(),
		OpenAPIDefinitions:  fakeDefinitions,
	}
}

// fakeInstaller stands in for endpoints.InstallAPIGroup: one WebService per version with a
// list route and a patch route shaped as the real installer's.
func fakeInstaller(container *restful.Container, info *registry.APIGroupInfo) ([]*metav1.APIResourceList, error) {
	var lists []*metav1.APIResourceList
	for _, gv := range info.PrioritizedVersions {
		ws := new(restful.WebService).Path("/apis/" + gv.String()).Produces("application/json")
		gvk := metav1.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: "Widget"}
		ws.Route(ws.GET("/widgets").To(func(_ *restful.Request, resp *restful.Response) {
			_ = resp.WriteAsJson(&testapi.WidgetList{})
		}).Operation("listWidget").Writes(testapi.WidgetList{}).Returns(http.StatusOK, "OK", testapi.WidgetList{}).
			Metadata("x-kubernetes-group-version-kind", gvk).Metadata("x-kubernetes-action", "list"))
		ws.Route(ws.PATCH("/widgets/{name}").To(func(_ *restful.Request, resp *restful.Response) {
			_ = resp.WriteAsJson(&testapi.Widget{})
		}).Operation("patchWidget").Reads(metav1.Patch{}).Writes(testapi.Widget{}).
			Returns(http.StatusOK, "OK", testapi.Widget{}).
			Param(ws.PathParameter("name", "name of the Widget")).
			Param(ws.QueryParameter("fieldValidation", "how to treat unknown fields")).
			Consumes("application/merge-patch+json").
			Metadata("x-kubernetes-group-version-kind", gvk).Metadata("x-kubernetes-action", "patch"))
		container.Add(ws)
		lists = append(lists, &metav1.APIResourceList{GroupVersion: gv.String(), APIResources: []metav1.APIResource{{
			Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget",
			Verbs: metav1.Verbs{"list", "patch"},
		}}})
	}
	return lists, nil
}

// fakeDefinitions describes the types fakeInstaller's routes use.
func fakeDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	object := func(props map[string]spec.Schema) common.OpenAPIDefinition {
		return common.OpenAPIDefinition{Schema: spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: props}}}
	}
	str := *spec.StringProperty()
	widget := object(map[string]spec.Schema{"kind": str, "apiVersion": str,
		"metadata": {SchemaProps: spec.SchemaProps{Ref: ref("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")}}})
	widget.Dependencies = []string{"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
	return map[string]common.OpenAPIDefinition{
		"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi.Widget":     widget,
		"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi.WidgetList": object(map[string]spec.Schema{"kind": str}),
		"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":                             object(map[string]spec.Schema{"name": str}),
		"io.k8s.apimachinery.pkg.apis.meta.v1.Patch":                                  object(nil),
	}
}

// serve prepares s and serves it on a free 127.0.0.1 port until the test ends; it returns
// the base URL and the prepared server.
func serve(t *testing.T, s *Server) (string, *PreparedServer) {
	t.Helper()
	p, err := s.PrepareRun()
	if err != nil {
		t.Fatalf("PrepareRun: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		waitServed(t, done, 10*time.Second, "Serve did not return after cancel")
	})
	return "http://" + ln.Addr().String(), p
}

// get fetches url and returns the status code, body and Content-Type.
func get(t *testing.T, url string, header ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body), resp.Header
}

var errBroken = errors.New("broken")

// waitServed waits up to bound for Serve's result on done: an error fails the test, and so
// does no result within bound (stuck says what was still going on).
func waitServed(t *testing.T, done <-chan error, bound time.Duration, stuck string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(bound):
		t.Fatal(stuck)
	}
}
