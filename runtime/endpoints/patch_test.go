package endpoints_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
)

func TestPatch(t *testing.T) {
	s := newTestServer(t)
	body := `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"p"},` +
		`"spec":{"size":1,"color":"red","ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`
	s.expect(t, request{method: "POST", path: widgets, body: body}, http.StatusCreated, nil)

	var w v1.Widget
	s.expect(t, request{method: "PATCH", path: widgets + "/p", contentType: "application/merge-patch+json",
		body: `{"spec":{"color":"blue"}}`}, http.StatusOK, &w)
	if w.Spec.Color != "blue" || len(w.Spec.Ports) != 2 {
		t.Errorf("merge patch: %+v", w.Spec)
	}
	s.expect(t, request{method: "PATCH", path: widgets + "/p", contentType: "application/json-patch+json",
		body: `[{"op":"replace","path":"/spec/size","value":7}]`}, http.StatusOK, &w)
	if w.Spec.Size != 7 || w.Generation != 3 {
		t.Errorf("json patch: %+v gen %d", w.Spec, w.Generation)
	}
	// A strategic merge patch merges ports by name (patchMergeKey) instead of replacing the list.
	s.expect(t, request{method: "PATCH", path: widgets + "/p", contentType: "application/strategic-merge-patch+json",
		body: `{"spec":{"ports":[{"name":"http","port":8080}]}}`}, http.StatusOK, &w)
	want := []v1.WidgetPort{{Name: "http", Port: 8080}, {Name: "https", Port: 443}}
	if diff := cmp.Diff(want, w.Spec.Ports); diff != "" {
		t.Errorf("strategic merge patch ports (-want +got):\n%s", diff)
	}
	// A merge patch replaces the list.
	s.expect(t, request{method: "PATCH", path: widgets + "/p", contentType: "application/merge-patch+json",
		body: `{"spec":{"ports":[{"name":"grpc","port":9090}]}}`}, http.StatusOK, &w)
	if len(w.Spec.Ports) != 1 || w.Spec.Ports[0].Name != "grpc" {
		t.Errorf("merge patch ports: %+v", w.Spec.Ports)
	}

	s.expectStatus(t, request{method: "PATCH", path: widgets + "/p", contentType: "application/apply-patch+cbor", body: "spec: {}"},
		http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, "")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/p", contentType: "application/json-patch+json",
		body: `[{"op":"test","path":"/spec/color","value":"nope"}]`}, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "cannot apply the patch")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/p", contentType: "application/merge-patch+json",
		body: `{"spec":{"size":1000}}`}, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "spec.size")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/p", contentType: "application/merge-patch+json",
		body: `{"metadata":{"resourceVersion":"1"}}`}, http.StatusConflict, metav1.StatusReasonConflict, "the object has been modified")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/nope", contentType: "application/merge-patch+json",
		body: `{}`}, http.StatusNotFound, metav1.StatusReasonNotFound, "not found")
}

func TestStatusSubresource(t *testing.T) {
	s := newTestServer(t)
	withStatus := `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"st"},"spec":{"size":1},"status":{"phase":"Ignored"}}`
	var w v1.Widget
	s.expect(t, request{method: "POST", path: widgets, body: withStatus}, http.StatusCreated, &w)
	if w.Status.Phase != "" {
		t.Errorf("create kept status: %+v", w.Status)
	}
	w.Status.Phase, w.Spec.Size = "Ready", 42
	body, _ := jsonMarshal(w)
	s.expect(t, request{method: "PUT", path: widgets + "/st/status", body: body}, http.StatusOK, &w)
	if w.Status.Phase != "Ready" || w.Spec.Size != 1 {
		t.Errorf("PUT /status: %+v %+v", w.Spec, w.Status)
	}
	s.expect(t, request{method: "PATCH", path: widgets + "/st", contentType: "application/merge-patch+json",
		body: `{"spec":{"size":5},"status":{"phase":"Hacked"}}`}, http.StatusOK, &w)
	if w.Status.Phase != "Ready" || w.Spec.Size != 5 {
		t.Errorf("PATCH main resource: %+v %+v", w.Spec, w.Status)
	}
	s.expect(t, request{method: "PATCH", path: widgets + "/st/status", contentType: "application/merge-patch+json",
		body: `{"status":{"phase":"Done"}}`}, http.StatusOK, &w)
	var got v1.Widget
	s.expect(t, request{method: "GET", path: widgets + "/st/status"}, http.StatusOK, &got)
	if got.Status.Phase != "Done" || got.Spec.Size != 5 {
		t.Errorf("GET /status: %+v %+v", got.Spec, got.Status)
	}
	s.expectStatus(t, request{method: "POST", path: widgets + "/st/status", body: body}, http.StatusMethodNotAllowed,
		metav1.StatusReasonMethodNotAllowed, "")
}
