package endpoints_test

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
)

const applyType = "application/apply-patch+yaml"

// entries summarises managedFields as "manager/operation/subresource: fields" lines, sorted,
// with the fields as the FieldsV1 JSON (timestamps ignored).
func entries(t *testing.T, m []metav1.ManagedFieldsEntry) []string {
	t.Helper()
	var out []string
	for _, e := range m {
		if e.FieldsType != "FieldsV1" || e.FieldsV1 == nil || e.Time == nil {
			t.Errorf("entry %+v lacks FieldsV1 or time", e)
			continue
		}
		out = append(out, e.Manager+"/"+string(e.Operation)+"/"+e.Subresource+"/"+e.APIVersion+": "+e.FieldsV1.GetRawString())
	}
	sort.Strings(out)
	return out
}

func TestApplyCreatesMergesAndConflicts(t *testing.T) {
	s := newTestServer(t)
	apply := func(manager, body string, extra string) request {
		return request{method: "PATCH", path: widgets + "/a?fieldManager=" + manager + extra, contentType: applyType, body: body}
	}
	var w v1.Widget
	s.expect(t, apply("alice", "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  size: 2\n  color: red\n", ""),
		http.StatusCreated, &w)
	if w.Spec.Size != 2 || w.Spec.Color != "red" || w.UID == "" {
		t.Fatalf("apply did not create the widget: %+v", w)
	}
	want := []string{`alice/Apply//test.apigen.dev/v1: {"f:spec":{"f:color":{},"f:size":{}}}`}
	if diff := cmp.Diff(want, entries(t, w.ManagedFields)); diff != "" {
		t.Errorf("managedFields after create (-want +got):\n%s", diff)
	}

	// Applying an edited configuration updates the object; leaving a field out removes it.
	w = v1.Widget{}
	s.expect(t, apply("alice", "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  size: 3\n", ""),
		http.StatusOK, &w)
	if w.Spec.Size != 3 || w.Spec.Color != "" || w.Generation != 2 {
		t.Errorf("re-apply: spec %+v generation %d, want size 3, no color, generation 2", w.Spec, w.Generation)
	}

	// Another manager applying a different value of the same field gets a 409 naming it.
	status := s.expectStatus(t, apply("bob", "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  size: 5\n", ""),
		http.StatusConflict, metav1.StatusReasonConflict, `Apply failed with 1 conflict: conflict with "alice": .spec.size`)
	if status.Details == nil || len(status.Details.Causes) != 1 || status.Details.Causes[0].Field != ".spec.size" ||
		status.Details.Causes[0].Message != `conflict with "alice"` || status.Details.Causes[0].Type != metav1.CauseTypeFieldManagerConflict {
		t.Errorf("conflict details: %+v", status.Details)
	}
	// force takes the field over; both managers keep an entry.
	w = v1.Widget{}
	s.expect(t, apply("bob", "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  size: 5\n  color: blue\n", "&force=true"),
		http.StatusOK, &w)
	// alice owned nothing but spec.size, which bob took: her entry goes.
	want = []string{`bob/Apply//test.apigen.dev/v1: {"f:spec":{"f:color":{},"f:size":{}}}`}
	if w.Spec.Size != 5 {
		t.Errorf("forced apply: size %d, want 5", w.Spec.Size)
	}
	if diff := cmp.Diff(want, entries(t, w.ManagedFields)); diff != "" {
		t.Errorf("managedFields after forced apply (-want +got):\n%s", diff)
	}

	// A merge patch by a User-Agent with no fieldManager adds an Update entry named after it.
	w = v1.Widget{}
	s.expect(t, request{method: "PATCH", path: widgets + "/a", contentType: "application/merge-patch+json",
		body: `{"metadata":{"labels":{"team":"db"}}}`, userAgent: "tool/1.0 (linux)"}, http.StatusOK, &w)
	want = append(want, `tool/Update//test.apigen.dev/v1: {"f:metadata":{"f:labels":{".":{},"f:team":{}}}}`)
	sort.Strings(want)
	if diff := cmp.Diff(want, entries(t, w.ManagedFields)); diff != "" {
		t.Errorf("managedFields after merge patch (-want +got):\n%s", diff)
	}
}

func TestApplyOptionsAndBadInput(t *testing.T) {
	s := newTestServer(t)
	body := "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: b\nspec:\n  size: 1\n"
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/b", contentType: applyType, body: body},
		http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "fieldManager: Required value: is required for apply patch")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/b?force=true", contentType: "application/merge-patch+json", body: "{}"},
		http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "force: Forbidden: may not be specified for non-apply patch")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/b?fieldManager=m", contentType: applyType, body: "- a\n- b\n"},
		http.StatusBadRequest, metav1.StatusReasonBadRequest, "error decoding patch")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/b?fieldManager=m", contentType: applyType,
		body: "apiVersion: test.apigen.dev/v1beta1\nkind: Widget\nmetadata:\n  name: b\n"},
		http.StatusBadRequest, metav1.StatusReasonBadRequest, "invalid object type")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/b?fieldManager=m", contentType: applyType,
		body: body + "metadata:\n  managedFields: []\n"},
		http.StatusBadRequest, metav1.StatusReasonBadRequest, "")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/b?fieldManager=m&fieldValidation=Strict", contentType: applyType,
		body: "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: b\nspec:\n  size: 1\n  size: 2\n"},
		http.StatusBadRequest, metav1.StatusReasonBadRequest, "error strict decoding patch")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/b?fieldManager=m", contentType: applyType,
		body: "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: b\n  uid: x1234\n"},
		http.StatusConflict, metav1.StatusReasonConflict, "uid mismatch")
	s.expectStatus(t, request{method: "POST", path: widgets + "?fieldManager=" + strings.Repeat("x", 129), body: widgetJSON("c", 1, "red")},
		http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "fieldManager: Too long")
	// Nothing was stored by the failed requests.
	s.expectStatus(t, request{method: "GET", path: widgets + "/b"}, http.StatusNotFound, metav1.StatusReasonNotFound, "")

	// A dry run computes managedFields without storing the object.
	var w v1.Widget
	s.expect(t, request{method: "PATCH", path: widgets + "/b?fieldManager=m&dryRun=All", contentType: applyType, body: body},
		http.StatusCreated, &w)
	if len(w.ManagedFields) != 1 || w.ManagedFields[0].Manager != "m" {
		t.Errorf("dry-run apply managedFields: %+v", w.ManagedFields)
	}
	s.expectStatus(t, request{method: "GET", path: widgets + "/b"}, http.StatusNotFound, metav1.StatusReasonNotFound, "")
}

func TestManagedFieldsOnWrites(t *testing.T) {
	s := newTestServer(t)
	var w v1.Widget
	s.expect(t, request{method: "POST", path: widgets + "?fieldManager=creator", body: widgetJSON("u", 1, "red")}, http.StatusCreated, &w)
	want := []string{`creator/Update//test.apigen.dev/v1: {"f:spec":{"f:color":{},"f:size":{}}}`}
	if diff := cmp.Diff(want, entries(t, w.ManagedFields)); diff != "" {
		t.Errorf("managedFields after create (-want +got):\n%s", diff)
	}
	if w.ManagedFields[0].Time.Time.Nanosecond() != 0 {
		t.Errorf("time %v is not at second precision", w.ManagedFields[0].Time)
	}
	// A PUT through v1beta1 by another manager records its fields in v1beta1's names.
	w.APIVersion, w.Kind = "test.apigen.dev/v1beta1", "Widget"
	put := `{"apiVersion":"test.apigen.dev/v1beta1","kind":"Widget","metadata":{"name":"u"},"spec":{"size":1,"colour":"green"}}`
	s.expect(t, request{method: "PUT", path: "/apis/test.apigen.dev/v1beta1/namespaces/ns/widgets/u?fieldManager=painter", body: put},
		http.StatusOK, nil)
	w = v1.Widget{}
	s.expect(t, request{method: "GET", path: widgets + "/u"}, http.StatusOK, &w)
	want = []string{
		`creator/Update//test.apigen.dev/v1: {"f:spec":{"f:size":{}}}`,
		`painter/Update//test.apigen.dev/v1beta1: {"f:spec":{"f:colour":{}}}`,
	}
	if diff := cmp.Diff(want, entries(t, w.ManagedFields)); diff != "" {
		t.Errorf("managedFields after put (-want +got):\n%s", diff)
	}

	// managedFields the field manager cannot decode are ignored: the stored ones stay.
	undecodable := `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"u","managedFields":[{"manager":"x","operation":"Delete","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{}}]},"spec":{"size":4,"color":"green"}}`
	w = v1.Widget{}
	s.expect(t, request{method: "PUT", path: widgets + "/u?fieldManager=sizer", body: undecodable}, http.StatusOK, &w)
	want = []string{
		`painter/Update//test.apigen.dev/v1beta1: {"f:spec":{"f:colour":{}}}`,
		`sizer/Update//test.apigen.dev/v1: {"f:spec":{"f:size":{}}}`,
	}
	if diff := cmp.Diff(want, entries(t, w.ManagedFields)); diff != "" {
		t.Errorf("managedFields after undecodable ones (-want +got):\n%s", diff)
	}
	// managedFields that decode but are invalid are rejected with apimachinery's messages.
	long := strings.Repeat("m", 129)
	bad := `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"u","managedFields":[{"manager":"` + long +
		`","operation":"Update","apiVersion":"test.apigen.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:size":{}}}}]},"spec":{"size":4,"color":"green"}}`
	s.expectStatus(t, request{method: "PUT", path: widgets + "/u?fieldManager=sizer", body: bad}, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		"metadata.managedFields[0].manager: Too long: may not be more than 128 bytes")

	// An update sending managedFields [{}] strips them; later updates are then not tracked
	// until an apply, as kube-apiserver's field manager does.
	data, _ := json.Marshal(map[string]any{"apiVersion": "test.apigen.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "u", "managedFields": []any{map[string]any{}}}, "spec": map[string]any{"size": 4, "color": "green"}})
	w = v1.Widget{}
	s.expect(t, request{method: "PUT", path: widgets + "/u?fieldManager=resetter", body: string(data)}, http.StatusOK, &w)
	if len(w.ManagedFields) != 0 {
		t.Errorf("managedFields after a reset: %v", entries(t, w.ManagedFields))
	}
	// managedFields: [] resets them too (here by a merge patch, after an apply recorded some).
	s.expect(t, request{method: "PATCH", path: widgets + "/u?fieldManager=a", contentType: applyType,
		body: "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: u\nspec:\n  color: green\n"}, http.StatusOK, nil)
	w = v1.Widget{}
	s.expect(t, request{method: "PATCH", path: widgets + "/u", contentType: "application/merge-patch+json",
		body: `{"metadata":{"managedFields":[]}}`}, http.StatusOK, &w)
	if len(w.ManagedFields) != 0 {
		t.Errorf("managedFields after a merge patch to []: %v", entries(t, w.ManagedFields))
	}

	// Apply to /status changes status only, and records a status entry (the fields before
	// the first apply would be "before-first-apply"'s, but /status resets all of them).
	w = v1.Widget{}
	s.expect(t, request{method: "PATCH", path: widgets + "/u/status?fieldManager=ctrl", contentType: applyType,
		body: "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: u\nspec:\n  size: 99\nstatus:\n  phase: Ready\n"}, http.StatusOK, &w)
	if w.Status.Phase != "Ready" || w.Spec.Size != 4 {
		t.Errorf("status apply: status %+v spec %+v, want phase Ready and size 4", w.Status, w.Spec)
	}
	want = []string{`ctrl/Apply/status/test.apigen.dev/v1: {"f:status":{"f:phase":{}}}`}
	if diff := cmp.Diff(want, entries(t, w.ManagedFields)); diff != "" {
		t.Errorf("managedFields after status apply (-want +got):\n%s", diff)
	}
}

// TestUpdateEntriesCapped writes a widget through twelve managers: the Update entries are
// capped at ten, the oldest merged into "ancient-changes", as kube-apiserver caps them.
func TestUpdateEntriesCapped(t *testing.T) {
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets + "?fieldManager=m00", body: widgetJSON("capped", 1, "red")}, http.StatusCreated, nil)
	for i := 1; i < 12; i++ {
		s.expect(t, request{method: "PATCH", path: widgets + "/capped?fieldManager=m" + itoa(i + 100)[1:], contentType: "application/merge-patch+json",
			body: `{"metadata":{"labels":{"l` + itoa(i) + `":"v"}}}`}, http.StatusOK, nil)
	}
	var w v1.Widget
	s.expect(t, request{method: "GET", path: widgets + "/capped"}, http.StatusOK, &w)
	updates, ancient := 0, false
	for _, e := range w.ManagedFields {
		if e.Operation == metav1.ManagedFieldsOperationUpdate {
			updates++
		}
		ancient = ancient || e.Manager == "ancient-changes"
	}
	if updates > 10 || !ancient {
		t.Errorf("%d Update entries (ancient-changes: %t), want at most 10 with ancient-changes: %v", updates, ancient, entries(t, w.ManagedFields))
	}
}
