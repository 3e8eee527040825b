package fieldmanager_test

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kube-openapi/pkg/common"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apigen-dev/apigen/runtime/fieldmanager"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/install"
	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
)

func TestManagerName(t *testing.T) {
	for _, c := range []struct{ manager, agent, want string }{
		{"mine", "kubectl/v1.32.0 (linux/amd64)", "mine"},
		{"", "kubectl/v1.32.0 (linux/amd64) kubernetes/abc", "kubectl"},
		{"", "kube-controller-manager/v1.32.0 (linux/amd64)", "kube-controller-manager"},
		{"", "no-slash", "no-slash"},
		{"", "tab\there/1", "tabhere"},
		{"", "", ""},
		{"", strings.Repeat("é", 100) + "/1", strings.Repeat("é", 64)},
	} {
		if got := fieldmanager.ManagerName(c.manager, c.agent); got != c.want {
			t.Errorf("ManagerName(%q, %q) = %q, want %q", c.manager, c.agent, got, c.want)
		}
	}
}

// TestTypeConverterMergesListMaps checks that the models built from OpenAPI definitions carry
// x-kubernetes-list-type=map: two managers applying different ports of one list each own
// their item, and neither apply removes the other's.
func TestTypeConverterMergesListMaps(t *testing.T) {
	scheme, err := install.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	tc, err := fieldmanager.NewTypeConverter(scheme, install.OpenAPIDefinitions)
	if err != nil {
		t.Fatal(err)
	}
	fm, err := fieldmanager.New(fieldmanager.Config{TypeConverter: tc, Convertor: runtime.UnsafeObjectConvertor(scheme),
		Defaulter: scheme, Creater: scheme, Kind: v1.SchemeGroupVersion.WithKind("Widget"),
		Hub: testapi.SchemeGroupVersion, ResetFields: testapi.WidgetStrategy{}.GetResetFields()})
	if err != nil {
		t.Fatal(err)
	}
	apply := func(live runtime.Object, manager, port string) runtime.Object {
		t.Helper()
		patch := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "test.apigen.dev/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w"},
			"spec":     map[string]any{"ports": []any{map[string]any{"name": port, "port": int64(80)}}},
			"status":   map[string]any{"phase": "Ignored"}}}
		out, err := fm.Apply(live, patch, manager, false)
		if err != nil {
			t.Fatalf("apply by %s: %v", manager, err)
		}
		return out
	}
	obj := apply(&testapi.Widget{}, "a", "http")
	obj = apply(obj, "b", "https")
	w := obj.(*testapi.Widget)
	if len(w.Spec.Ports) != 2 {
		t.Fatalf("ports after two applies: %+v", w.Spec.Ports)
	}
	for _, e := range w.ManagedFields {
		if strings.Contains(e.FieldsV1.GetRawString(), "status") {
			t.Errorf("%s owns a reset field: %s", e.Manager, e.FieldsV1.GetRawString())
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(strings.NewReader(e.FieldsV1.GetRawString())); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(set.String(), `.spec.ports[name="`) {
			t.Errorf("%s's fields %s are not keyed by name", e.Manager, set)
		}
	}
}

// TestTypeConverterMapType checks that x-kubernetes-map-type (from +structType or +mapType)
// decides the merge: on an atomic spec a second manager applying another field of it
// conflicts with the first, on a granular one it does not.
func TestTypeConverterMapType(t *testing.T) {
	scheme, err := install.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	for _, mapType := range []string{"granular", "atomic"} {
		defs := func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
			out := install.OpenAPIDefinitions(ref)
			name := "github.com/apigen-dev/apigen/runtime/registry/testapi/v1.WidgetSpec"
			def := out[name]
			def.Schema.AddExtension("x-kubernetes-map-type", mapType)
			out[name] = def
			return out
		}
		tc, err := fieldmanager.NewTypeConverter(scheme, defs)
		if err != nil {
			t.Fatal(err)
		}
		fm, err := fieldmanager.New(fieldmanager.Config{TypeConverter: tc, Convertor: runtime.UnsafeObjectConvertor(scheme),
			Defaulter: scheme, Creater: scheme, Kind: v1.SchemeGroupVersion.WithKind("Widget"), Hub: testapi.SchemeGroupVersion})
		if err != nil {
			t.Fatal(err)
		}
		patch := func(field string, value any) *unstructured.Unstructured {
			return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "test.apigen.dev/v1", "kind": "Widget",
				"metadata": map[string]any{"name": "w"}, "spec": map[string]any{field: value}}}
		}
		obj, err := fm.Apply(&testapi.Widget{}, patch("size", int64(3)), "a", false)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fm.Apply(obj, patch("color", "red"), "b", false)
		if conflict := apierrors.IsConflict(err); conflict != (mapType == "atomic") {
			t.Errorf("x-kubernetes-map-type %s: second manager's apply: %v", mapType, err)
		}
	}
}
