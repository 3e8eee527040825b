package endpoints_test

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/v1beta1"
)

func TestCRUDAcrossVersions(t *testing.T) {
	s := newTestServer(t)
	beta := `{"apiVersion":"test.apigen.dev/v1beta1","kind":"Widget","metadata":{"name":"w1"},"spec":{"colour":"blue"}}`
	var created v1beta1.Widget
	s.expect(t, request{method: "POST", path: "/apis/test.apigen.dev/v1beta1/namespaces/ns/widgets", body: beta}, http.StatusCreated, &created)
	if created.Spec.Colour != "blue" || created.Spec.Size != 1 || created.APIVersion != "test.apigen.dev/v1beta1" ||
		created.Kind != "Widget" || created.UID == "" || created.Namespace != "ns" {
		t.Errorf("created %+v", created)
	}

	var got v1.Widget
	s.expect(t, request{method: "GET", path: widgets + "/w1"}, http.StatusOK, &got)
	if got.Spec.Color != "blue" || got.APIVersion != "test.apigen.dev/v1" || got.ResourceVersion != created.ResourceVersion {
		t.Errorf("v1 read of a v1beta1 write: %+v", got)
	}

	got.Spec.Color = "green"
	body, _ := jsonMarshal(got)
	var updated v1.Widget
	s.expect(t, request{method: "PUT", path: widgets + "/w1", body: body}, http.StatusOK, &updated)
	if updated.Spec.Color != "green" || updated.Generation != 2 {
		t.Errorf("updated %+v", updated)
	}
	var betaRead v1beta1.Widget
	s.expect(t, request{method: "GET", path: "/apis/test.apigen.dev/v1beta1/namespaces/ns/widgets/w1"}, http.StatusOK, &betaRead)
	if betaRead.Spec.Colour != "green" {
		t.Errorf("v1beta1 read of a v1 write: %+v", betaRead)
	}

	var list v1.WidgetList
	s.expect(t, request{method: "GET", path: widgets}, http.StatusOK, &list)
	if list.Kind != "WidgetList" || len(list.Items) != 1 || list.ResourceVersion == "" {
		t.Errorf("list %+v", list)
	}
	var all v1.WidgetList
	s.expect(t, request{method: "GET", path: "/apis/test.apigen.dev/v1/widgets"}, http.StatusOK, &all)
	if len(all.Items) != 1 {
		t.Errorf("list across namespaces %+v", all)
	}

	var deleted v1.Widget
	s.expect(t, request{method: "DELETE", path: widgets + "/w1"}, http.StatusOK, &deleted)
	if deleted.Name != "w1" || deleted.Spec.Color != "green" {
		t.Errorf("deleted %+v", deleted)
	}
	status := s.expectStatus(t, request{method: "GET", path: widgets + "/w1"}, http.StatusNotFound, metav1.StatusReasonNotFound,
		`widgets.test.apigen.dev "w1" not found`)
	if status.Details == nil || status.Details.Name != "w1" || status.Details.Kind != "widgets" || status.Details.Group != "test.apigen.dev" {
		t.Errorf("NotFound details %+v", status.Details)
	}
}

func TestYAML(t *testing.T) {
	s := newTestServer(t)
	body := "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: yw\nspec:\n  size: 4\n  color: red\n"
	resp, data := s.do(t, request{method: "POST", path: widgets, contentType: "application/yaml", accept: "application/yaml", body: body})
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Content-Type") != "application/yaml" {
		t.Fatalf("POST yaml: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	var w v1.Widget
	if err := yaml.Unmarshal(data, &w); err != nil || w.Spec.Size != 4 || !strings.HasPrefix(string(data), "apiVersion: test.apigen.dev/v1\n") {
		t.Errorf("yaml response %s: %v", data, err)
	}
	s.expectStatus(t, request{method: "POST", path: widgets, contentType: "text/plain", body: "name: x"},
		http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, "application/json, application/yaml")
	s.expectStatus(t, request{method: "GET", path: widgets + "/yw", accept: "text/html"},
		http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, "")
}

func TestWriteErrors(t *testing.T) {
	s := newTestServer(t)
	var created v1.Widget
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("w", 1, "red")}, http.StatusCreated, &created)
	s.expectStatus(t, request{method: "POST", path: widgets, body: widgetJSON("w", 1, "red")},
		http.StatusConflict, metav1.StatusReasonAlreadyExists, `widgets.test.apigen.dev "w" already exists`)

	stale := strings.Replace(widgetJSON("w", 2, "red"), `"name":"w"`, `"name":"w","resourceVersion":"1"`, 1)
	s.expectStatus(t, request{method: "PUT", path: widgets + "/w", body: stale}, http.StatusConflict, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on widgets.test.apigen.dev "w": the object has been modified; please apply your changes to the latest version and try again`)

	invalid := s.expectStatus(t, request{method: "POST", path: widgets, body: widgetJSON("big", 500, "red")},
		http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "spec.size")
	if invalid.Details == nil || len(invalid.Details.Causes) != 1 || invalid.Details.Causes[0].Field != "spec.size" {
		t.Errorf("422 causes %+v", invalid.Details)
	}
	beta := `{"apiVersion":"test.apigen.dev/v1beta1","kind":"Widget","metadata":{"name":"x"}}`
	s.expectStatus(t, request{method: "POST", path: widgets, body: beta}, http.StatusBadRequest, metav1.StatusReasonBadRequest,
		"the API version in the data (test.apigen.dev/v1beta1) does not match the expected API version (test.apigen.dev/v1)")
	gadget := `{"apiVersion":"test.apigen.dev/v1","kind":"Gadget","metadata":{"name":"x"}}`
	s.expectStatus(t, request{method: "POST", path: widgets, body: gadget}, http.StatusBadRequest, metav1.StatusReasonBadRequest,
		"the kind in the data (Gadget) does not match the expected kind (Widget)")
	s.expectStatus(t, request{method: "PUT", path: widgets + "/missing", body: widgetJSON("missing", 1, "red")},
		http.StatusNotFound, metav1.StatusReasonNotFound, "not found")
	s.expectStatus(t, request{method: "POST", path: widgets + "?dryRun=Maybe", body: widgetJSON("d", 1, "red")},
		http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "dryRun")
	s.expectStatus(t, request{method: "GET", path: widgets + "?fieldSelector=spec.size%3D1"},
		http.StatusBadRequest, metav1.StatusReasonBadRequest, "field label not supported: spec.size")

	var dry v1.Widget
	s.expect(t, request{method: "POST", path: widgets + "?dryRun=All", body: widgetJSON("dry", 1, "red")}, http.StatusCreated, &dry)
	s.expectStatus(t, request{method: "GET", path: widgets + "/dry"}, http.StatusNotFound, metav1.StatusReasonNotFound, "")
}

func TestClusterScopedAndSelectors(t *testing.T) {
	s := newTestServer(t)
	const gadgets = "/apis/test.apigen.dev/v1/gadgets"
	for _, name := range []string{"g1", "g2"} {
		body := `{"apiVersion":"test.apigen.dev/v1","kind":"Gadget","metadata":{"name":"` + name + `","labels":{"n":"` + name + `"}},"spec":{"owner":"me"}}`
		s.expect(t, request{method: "POST", path: gadgets, body: body}, http.StatusCreated, nil)
	}
	var list v1.GadgetList
	s.expect(t, request{method: "GET", path: gadgets + "?labelSelector=n%3Dg2"}, http.StatusOK, &list)
	if len(list.Items) != 1 || list.Items[0].Name != "g2" {
		t.Errorf("label selector: %+v", list.Items)
	}
	s.expect(t, request{method: "GET", path: gadgets + "?fieldSelector=metadata.name%3Dg1"}, http.StatusOK, &list)
	if len(list.Items) != 1 || list.Items[0].Name != "g1" {
		t.Errorf("field selector: %+v", list.Items)
	}
	s.expect(t, request{method: "GET", path: gadgets + "?limit=1"}, http.StatusOK, &list)
	if len(list.Items) != 1 || list.Continue == "" {
		t.Fatalf("limit: %+v", list)
	}
	s.expect(t, request{method: "GET", path: gadgets + "?limit=1&continue=" + list.Continue}, http.StatusOK, &list)
	if len(list.Items) != 1 || list.Items[0].Name != "g2" {
		t.Errorf("continue: %+v", list.Items)
	}
	var deleted v1.GadgetList
	s.expect(t, request{method: "DELETE", path: gadgets + "?labelSelector=n%3Dg1"}, http.StatusOK, &deleted)
	if len(deleted.Items) != 1 || deleted.Items[0].Name != "g1" {
		t.Errorf("deletecollection: %+v", deleted.Items)
	}
	s.expect(t, request{method: "DELETE", path: gadgets + "/g2", body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}`},
		http.StatusOK, nil)
	s.expect(t, request{method: "GET", path: gadgets}, http.StatusOK, &list)
	if len(list.Items) != 0 {
		t.Errorf("left after deletes: %+v", list.Items)
	}
}
