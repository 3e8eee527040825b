package endpoints_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// copyBomb is a JSON patch of n copy operations, each copying the whole spec into itself, so
// that the document doubles with every operation (30 would make it 2^30 times larger).
func copyBomb(n int) string {
	ops := make([]string, n)
	for i := range ops {
		ops[i] = `{"op":"copy","from":"/spec","path":"/spec/c` + itoa(i) + `"}`
	}
	return "[" + strings.Join(ops, ",") + "]"
}

// TestJSONPatchCopyBomb sends a patch whose copies would grow the object to gigabytes: it is
// refused with 422 for passing kube-apiserver's copy limit (the request body limit, 3 MiB)
// before any copy is made, and the object is unchanged.
func TestJSONPatchCopyBomb(t *testing.T) {
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("bomb", 1, strings.Repeat("r", 100))}, http.StatusCreated, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/bomb", contentType: "application/json-patch+json", body: copyBomb(30)},
		http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "exceeding the limit 3145728")
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("copy bomb refused in %v, %d KiB allocated by the whole process meanwhile", elapsed, allocated>>10)
	// Unbounded, the 30 copies ask for 2^30 times the spec: tens of gigabytes; bounded by
	// json-patch's limit alone, ~20 MiB; refused by checkCopyBudget before any copy, about
	// what the request itself costs.
	if allocated > 8<<20 {
		t.Errorf("the refused patch allocated %d MiB; want it refused before its copies", allocated>>20)
	}
	var w struct {
		Spec map[string]any `json:"spec"`
	}
	s.expect(t, request{method: "GET", path: widgets + "/bomb"}, http.StatusOK, &w)
	if _, ok := w.Spec["c0"]; ok || len(w.Spec) != 2 {
		t.Errorf("the refused patch changed the object: spec %v", w.Spec)
	}
}

// TestJSONPatchOperationLimit: 10,000 operations apply; 10,001 are refused before anything is
// applied with kube-apiserver's 413 and message.
func TestJSONPatchOperationLimit(t *testing.T) {
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("ops", 1, "red")}, http.StatusCreated, nil)
	ops := func(n int) string {
		op := `{"op":"test","path":"/spec/color","value":"red"}`
		return "[" + strings.TrimSuffix(strings.Repeat(op+",", n), ",") + "]"
	}
	s.expect(t, request{method: "PATCH", path: widgets + "/ops", contentType: "application/json-patch+json", body: ops(10000)}, http.StatusOK, nil)
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/ops", contentType: "application/json-patch+json", body: ops(10001)},
		http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
		"The allowed maximum operations in a JSON patch is 10000, got 10001")
}

// TestPatchStrictDuplicateFields: a merge, strategic merge or JSON patch with a duplicate
// field is refused under fieldValidation=Strict (422 on field "patch", as kube-apiserver's
// patch handler) and applied with a warning under the default, Warn.
func TestPatchStrictDuplicateFields(t *testing.T) {
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("dup", 1, "red")}, http.StatusCreated, nil)
	for _, tc := range []struct{ contentType, body, warning string }{
		{"application/merge-patch+json", `{"spec":{"color":"blue","color":"green"}}`, `duplicate field "spec.color"`},
		{"application/strategic-merge-patch+json", `{"spec":{"size":2},"spec":{"size":3}}`, `duplicate field "spec"`},
		{"application/json-patch+json", `[{"op":"replace","path":"/spec/size","value":2,"value":3}]`, `json patch duplicate field "[0].value"`},
	} {
		st := s.expectStatus(t, request{method: "PATCH", path: widgets + "/dup?fieldValidation=Strict", contentType: tc.contentType, body: tc.body},
			http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, tc.warning)
		if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != "patch" {
			t.Errorf("%s: causes %+v, want one on field patch", tc.contentType, st.Details)
		}
		var w struct {
			Spec struct {
				Size  int    `json:"size"`
				Color string `json:"color"`
			} `json:"spec"`
		}
		s.expect(t, request{method: "GET", path: widgets + "/dup"}, http.StatusOK, &w)
		if w.Spec.Size != 1 || w.Spec.Color != "red" {
			t.Fatalf("%s: the refused patch changed the object: %+v", tc.contentType, w.Spec)
		}
	}
	resp := s.expect(t, request{method: "PATCH", path: widgets + "/dup", contentType: "application/merge-patch+json",
		body: `{"spec":{"color":"blue","color":"green"}}`}, http.StatusOK, nil)
	if got := resp.Header.Get("Warning"); !strings.Contains(got, `duplicate field \"spec.color\"`) {
		t.Errorf("Warn: Warning header %q lacks the duplicate field", got)
	}
}

// TestBodyNameAndNamespace: a PUT body without a name, or whose namespace is not the URL's,
// and a patch that moves the object to another namespace are 400 with kube-apiserver's
// messages.
func TestBodyNameAndNamespace(t *testing.T) {
	s := newTestServer(t)
	s.expect(t, request{method: "POST", path: widgets, body: widgetJSON("nn", 1, "red")}, http.StatusCreated, nil)
	noName := `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{},"spec":{"size":2}}`
	s.expectStatus(t, request{method: "PUT", path: widgets + "/nn", body: noName}, http.StatusBadRequest, metav1.StatusReasonBadRequest,
		"the name of the object (nn based on URL) was undeterminable: name must be provided")
	otherNS := `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"nn","namespace":"other"},"spec":{"size":2}}`
	s.expectStatus(t, request{method: "PUT", path: widgets + "/nn", body: otherNS}, http.StatusBadRequest, metav1.StatusReasonBadRequest,
		"the namespace of the object (other) does not match the namespace on the request (ns)")
	s.expectStatus(t, request{method: "PATCH", path: widgets + "/nn", contentType: "application/merge-patch+json",
		body: `{"metadata":{"namespace":"other"},"spec":{"size":2}}`}, http.StatusBadRequest, metav1.StatusReasonBadRequest,
		"the namespace of the provided object does not match the namespace sent on the request")
	var w struct {
		Spec struct {
			Size int `json:"size"`
		} `json:"spec"`
	}
	s.expect(t, request{method: "GET", path: widgets + "/nn"}, http.StatusOK, &w)
	if w.Spec.Size != 1 {
		t.Errorf("a refused write changed the object: size %d", w.Spec.Size)
	}
}
