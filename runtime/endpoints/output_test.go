package endpoints_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
)

// kubectlTableAccept is the Accept header `kubectl get` sends.
const kubectlTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

func TestTable(t *testing.T) {
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("a", 2, "red")}, http.StatusCreated, nil)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("b", 3, "blue")}, http.StatusCreated, nil)

	var table metav1.Table
	s.expect(t, request{method: "GET", path: widgets, accept: kubectlTableAccept}, http.StatusOK, &table)
	if table.Kind != "Table" || table.APIVersion != "meta.k8s.io/v1" || table.ResourceVersion == "" {
		t.Errorf("table type or metadata: %+v", table.TypeMeta)
	}
	var headers []string
	for _, c := range table.ColumnDefinitions {
		headers = append(headers, c.Name)
	}
	if diff := cmp.Diff([]string{"Name", "Color", "Size", "Age"}, headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if len(table.Rows) != 2 || table.Rows[0].Cells[0] != "a" || table.Rows[0].Cells[1] != "red" || table.Rows[0].Cells[2] != float64(2) {
		t.Fatalf("rows: %+v", table.Rows)
	}
	var partial metav1.PartialObjectMetadata
	if err := json.Unmarshal(table.Rows[0].Object.Raw, &partial); err != nil || partial.Kind != "PartialObjectMetadata" ||
		partial.Name != "a" || partial.Namespace != "ns" {
		t.Errorf("row object: %s %v", table.Rows[0].Object.Raw, err)
	}

	s.expect(t, request{method: "GET", path: widgets + "/b?includeObject=Object", accept: kubectlTableAccept}, http.StatusOK, &table)
	var full v1.Widget
	if err := json.Unmarshal(table.Rows[0].Object.Raw, &full); err != nil || full.Kind != "Widget" || full.Spec.Color != "blue" {
		t.Errorf("single-object table with the object: %s %v", table.Rows[0].Object.Raw, err)
	}
	s.expect(t, request{method: "GET", path: widgets + "/b", accept: "application/json;as=Table;v=v1beta1;g=meta.k8s.io"}, http.StatusOK, &table)
	if table.APIVersion != "meta.k8s.io/v1beta1" || len(table.Rows) != 1 {
		t.Errorf("v1beta1 table: %+v", table.TypeMeta)
	}

	var list metav1.PartialObjectMetadataList
	s.expect(t, request{method: "GET", path: widgets, accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}, http.StatusOK, &list)
	if list.Kind != "PartialObjectMetadataList" || len(list.Items) != 2 || list.Items[1].Name != "b" {
		t.Errorf("partial list: %+v", list)
	}
	var one metav1.PartialObjectMetadata
	s.expect(t, request{method: "GET", path: widgets + "/a", accept: "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"}, http.StatusOK, &one)
	if one.Kind != "PartialObjectMetadata" || one.Name != "a" || one.UID == "" {
		t.Errorf("partial object: %+v", one)
	}
}

func TestFieldValidation(t *testing.T) {
	s := newTestServer(t)
	unknown := `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"NAME"},"spec":{"size":1,"foo":"bar"}}`
	body := func(name string) string { return replaceName(unknown, name) }

	s.expectStatus(t, request{method: "POST", path: widgets + "?fieldValidation=Strict", body: body("strict")},
		http.StatusBadRequest, metav1.StatusReasonBadRequest, `strict decoding error: unknown field "spec.foo"`)

	resp := s.expect(t, request{method: "POST", path: widgets, body: body("warn")}, http.StatusCreated, nil)
	if got := resp.Header.Values("Warning"); len(got) != 1 || got[0] != `299 - "unknown field \"spec.foo\""` {
		t.Errorf("default (Warn) warnings: %q", got)
	}
	resp = s.expect(t, request{method: "POST", path: widgets + "?fieldValidation=Ignore", body: body("ignore")}, http.StatusCreated, nil)
	if got := resp.Header.Values("Warning"); len(got) != 0 {
		t.Errorf("Ignore warnings: %q", got)
	}
	dup := `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"dup"},"spec":{"size":1,"size":2}}`
	s.expectStatus(t, request{method: "POST", path: widgets + "?fieldValidation=Strict", body: dup},
		http.StatusBadRequest, metav1.StatusReasonBadRequest, `duplicate field "spec.size"`)
	s.expectStatus(t, request{method: "POST", path: widgets + "?fieldValidation=Loose", body: body("x")},
		http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "fieldValidation")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/warn?fieldValidation=Strict", contentType: "application/merge-patch+json",
		body: `{"spec":{"bar":1}}`}, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, `unknown field "spec.bar"`)
}

func replaceName(body, name string) string {
	var m map[string]interface{}
	_ = json.Unmarshal([]byte(body), &m)
	m["metadata"].(map[string]interface{})["name"] = name
	data, _ := json.Marshal(m)
	return string(data)
}
