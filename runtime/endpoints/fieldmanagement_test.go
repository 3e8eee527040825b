package endpoints_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/common"

	"github.com/apigen-dev/apigen/runtime/registry"
	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
)

// countDefinitions wraps a group's OpenAPI definitions, counting the calls in calls and
// leaving out the definitions whose name ends with drop ("" drops none).
func countDefinitions(calls *atomic.Int32, drop string) func(*registry.APIGroupInfo) {
	return func(info *registry.APIGroupInfo) {
		defs := info.OpenAPIDefinitions
		info.OpenAPIDefinitions = func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
			calls.Add(1)
			out := defs(ref)
			for name := range out {
				if drop != "" && strings.HasSuffix(name, drop) {
					delete(out, name)
				}
			}
			return out
		}
	}
}

// TestFieldManagementBuiltAtFirstWrite installs a group without reading its OpenAPI
// definitions (the models field management merges by are most of what a server allocates
// while it starts, and a server at rest never needs them): the first write builds them, once
// for the group, and records managedFields as ever.
func TestFieldManagementBuiltAtFirstWrite(t *testing.T) {
	var calls atomic.Int32
	s := newLimitedServer(t, countDefinitions(&calls, ""))
	if n := calls.Load(); n != 0 {
		t.Fatalf("installing the group read its OpenAPI definitions %d times, want none before a write", n)
	}
	s.expect(t, request{method: http.MethodGet, path: widgets}, http.StatusOK, nil)
	if n := calls.Load(); n != 0 {
		t.Fatalf("a list read the OpenAPI definitions %d times, want none", n)
	}
	var w v1.Widget
	s.expect(t, request{method: http.MethodPost, path: widgets, body: widgetJSON("a", 1, "red"), userAgent: "first/1.0"}, http.StatusCreated, &w)
	want := []string{`first/Update//test.apigen.dev/v1: {"f:spec":{"f:color":{},"f:size":{}}}`}
	if got := entries(t, w.ManagedFields); len(got) != 1 || got[0] != want[0] {
		t.Errorf("managedFields after the first create = %q, want %q", got, want)
	}
	built := calls.Load()
	if built == 0 {
		t.Fatal("the first write did not build the type converter")
	}
	s.expect(t, request{method: http.MethodPost, path: widgets, body: widgetJSON("b", 2, "blue")}, http.StatusCreated, nil)
	s.expect(t, request{method: http.MethodPost, path: "/apis/test.apigen.dev/v1beta1/namespaces/ns/widgets",
		body: `{"apiVersion":"test.apigen.dev/v1beta1","kind":"Widget","metadata":{"name":"c"},"spec":{"size":1}}`}, http.StatusCreated, nil)
	if n := calls.Load(); n != built {
		t.Errorf("later writes read the OpenAPI definitions again (%d calls after the first write's %d)", n, built)
	}
}

// TestFieldManagementBuildFailureFailsWrites gives a group definitions that lack a type its
// kinds refer to: the group still installs and serves reads, and every write that needs
// field management is 500 InternalError naming the missing definition (as the install
// error used to).
func TestFieldManagementBuildFailureFailsWrites(t *testing.T) {
	var calls atomic.Int32
	s := newLimitedServer(t, countDefinitions(&calls, ".WidgetSpec"))
	s.expect(t, request{method: http.MethodGet, path: widgets}, http.StatusOK, nil)
	for range 2 {
		s.expectStatus(t, request{method: http.MethodPost, path: widgets, body: widgetJSON("a", 1, "red")},
			http.StatusInternalServerError, metav1.StatusReasonInternalError, "WidgetSpec")
	}
	s.expectStatus(t, request{method: http.MethodPatch, path: widgets + "/a?fieldManager=m", contentType: applyType,
		body: "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: a\nspec:\n  size: 2\n"},
		http.StatusInternalServerError, metav1.StatusReasonInternalError, "WidgetSpec")
}
