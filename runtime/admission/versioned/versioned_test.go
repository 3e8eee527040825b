package versioned

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

var (
	v1     = testapi.SchemeGroupVersion
	v2     = schema.GroupVersion{Group: v1.Group, Version: "v2"}
	hubGV  = schema.GroupVersion{Group: v1.Group, Version: runtime.APIVersionInternal}
	widget = func(gv schema.GroupVersion) schema.GroupVersionKind { return gv.WithKind("Widget") }
)

// twoVersionScheme serves Widgets as v1 and v2 over one internal type (the same Go type, so
// the scheme converts by copying).
func twoVersionScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, gv := range []schema.GroupVersion{v1, v2, hubGV} {
		s.AddKnownTypes(gv, &testapi.Widget{}, &testapi.WidgetList{})
	}
	metav1.AddToGroupVersion(s, v1)
	return s
}

// storage stands for a resource's storage; name gives it a size, so two are distinct pointers.
type storage struct{ name string }

func (storage) New() runtime.Object { return &testapi.Widget{} }

type scale struct{ storage }

func (scale) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
}

func TestResources(t *testing.T) {
	main, other := &storage{"widgets"}, &storage{"gadgets"}
	info := &registry.APIGroupInfo{Group: v1.Group, PrioritizedVersions: []schema.GroupVersion{v1, v2},
		VersionedResourcesStorageMap: map[string]map[string]rest.Storage{
			"v1": {"widgets": main, "widgets/scale": scale{}, "gadgets": other},
			"v2": {"widgets": main, "widgets/scale": scale{}},
		}}
	r := NewResources(twoVersionScheme(), info)
	got := r.EquivalentResourcesFor(v2.WithResource("widgets"), "")
	if len(got) != 2 || got[0] != v1.WithResource("widgets") || got[1] != v2.WithResource("widgets") {
		t.Errorf("equivalents of v2 widgets: %v", got)
	}
	if got := r.EquivalentResourcesFor(v1.WithResource("gadgets"), ""); len(got) != 1 {
		t.Errorf("gadgets are their own only equivalent: %v", got)
	}
	if got := r.EquivalentResourcesFor(v1.WithResource("widgets"), "scale"); len(got) != 2 {
		t.Errorf("the scale subresource in both versions: %v", got)
	}
	if k := r.KindFor(v2.WithResource("widgets"), ""); k != widget(v2) {
		t.Errorf("KindFor(v2 widgets) = %v", k)
	}
	if k := r.KindFor(v1.WithResource("widgets"), "scale"); k.Kind != "Scale" {
		t.Errorf("KindFor(widgets/scale) = %v", k)
	}
	if gvr, ok := r.ResourceFor(widget(v2)); !ok || gvr != v2.WithResource("widgets") {
		t.Errorf("ResourceFor(v2 Widget) = %v %v", gvr, ok)
	}
	if r.EquivalentResourcesFor(schema.GroupVersionResource{Resource: "pods"}, "") != nil {
		t.Error("an unknown resource has equivalents")
	}
}

func TestConverterTyped(t *testing.T) {
	c := NewConverter(twoVersionScheme())
	internal := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: testapi.WidgetSpec{Color: "red", Size: 3}}
	v, err := c.ToVersion(internal, widget(v2))
	if err != nil {
		t.Fatal(err)
	}
	if v == runtime.Object(internal) || v.GetObjectKind().GroupVersionKind() != widget(v2) {
		t.Fatalf("ToVersion returned %#v", v)
	}
	data, err := c.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"Widget","apiVersion":"test.apigen.dev/v2","metadata":{"name":"a"},"spec":{"color":"red","size":3}}`; string(data) != want {
		t.Errorf("Encode:\n%s\nwant\n%s", data, want)
	}
	m, err := c.ToMap(v)
	if err != nil || m["spec"].(map[string]any)["size"] != int64(3) {
		t.Errorf("ToMap: %v %v", m, err)
	}
	patched, err := c.Decode([]byte(`{"kind":"Widget","apiVersion":"test.apigen.dev/v2","metadata":{"name":"a"},"spec":{"color":"blue","size":3}}`), widget(v2), v)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Into(patched, internal); err != nil {
		t.Fatal(err)
	}
	if internal.Spec.Color != "blue" || !internal.GetObjectKind().GroupVersionKind().Empty() {
		t.Errorf("Into: %+v (kind %v)", internal.Spec, internal.GetObjectKind().GroupVersionKind())
	}
	if obj, err := c.ToVersion(nil, widget(v1)); obj != nil || err != nil {
		t.Errorf("ToVersion(nil) = %v %v", obj, err)
	}
}

func TestConverterUnstructured(t *testing.T) {
	c := NewConverter(runtime.NewScheme())
	stored := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "a"}, "spec": map[string]any{"replicas": int64(1)}}}
	v, err := c.ToVersion(stored, schema.GroupVersionKind{Group: "stable.example.com", Version: "v2", Kind: "CronTab"})
	if err != nil || v.(*unstructured.Unstructured).GetAPIVersion() != "stable.example.com/v2" || stored.GetAPIVersion() != "stable.example.com/v1" {
		t.Fatalf("ToVersion: %v %v", v, err)
	}
	patched, err := c.Decode([]byte(`{"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":{"name":"a"},"spec":{"replicas":2}}`), schema.GroupVersionKind{}, v)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Into(patched, stored); err != nil {
		t.Fatal(err)
	}
	if stored.GetAPIVersion() != "stable.example.com/v1" || stored.Object["spec"].(map[string]any)["replicas"] != int64(2) {
		t.Errorf("Into: %v", stored.Object)
	}
}
