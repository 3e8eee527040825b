package v1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// TestDefaultEmpty defaults an empty Widget through the scheme, as the server's decoder does.
func TestDefaultEmpty(t *testing.T) {
	w := &Widget{Spec: WidgetSpec{
		Backup: &BackupPolicy{},
		Ports:  []Port{{}},
		ByName: map[string]Port{"a": {}},
		Refs:   map[string]*Port{"r": {}, "nil": nil},
		Grid:   [][]Port{{{Name: "g"}}},
	}}
	newScheme(t).Default(w)
	policy := BackupPolicy{RetentionDays: 7, Enabled: true, Ratio: 0.5}
	tcp := Port{Name: "port", Protocol: "TCP"}
	want := &Widget{ObjectMeta: metav1.ObjectMeta{Name: "unnamed"}, Spec: WidgetSpec{
		Engine:   "postgres",
		Replicas: ptr[int32](1),
		Size:     resource.MustParse("10Gi"),
		Backup:   &policy,
		Ports:    []Port{tcp},
		ByName:   map[string]Port{"a": tcp},
		Refs:     map[string]*Port{"r": &tcp, "nil": nil},
		Tags:     []string{"a", "b"},
		Labels:   map[string]string{"app": "widget"},
		Count:    ptr[Count](3),
		Grid:     [][]Port{{{Name: "g", Protocol: "TCP"}}},
		Policy:   BackupPolicy{RetentionDays: 1, Enabled: true, Ratio: 0.5},
	}}
	if diff := cmp.Diff(want, w, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Errorf("defaulted Widget mismatch (-want +got):\n%s", diff)
	}
}

// TestDefaultKeepsSetValues checks that a value the client set is never overwritten.
func TestDefaultKeepsSetValues(t *testing.T) {
	w := &Widget{Spec: WidgetSpec{Engine: "mysql", Replicas: ptr[int32](0), Size: resource.MustParse("1Gi"),
		Tags: []string{"x"}, Count: ptr[Count](0), Policy: BackupPolicy{RetentionDays: 2, Ratio: 0.1}}}
	want := copySpec(w.Spec)
	newScheme(t).Default(w)
	want.Labels = map[string]string{"app": "widget"}
	want.Policy.Enabled = true
	if diff := cmp.Diff(want, w.Spec, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Errorf("defaulted WidgetSpec mismatch (-want +got):\n%s", diff)
	}
}

// TestDefaultLists checks that a list defaults its items and that a kind without defaults is
// left alone.
func TestDefaultLists(t *testing.T) {
	s := newScheme(t)
	l := &ThingList{Items: []Thing{{}, {Note: "kept"}}}
	s.Default(l)
	if l.Items[0].Note != "defaulted" || l.Items[1].Note != "kept" {
		t.Errorf("ThingList items = %+v, want notes defaulted and kept", l.Items)
	}
	wl := &WidgetList{Items: []Widget{{}}}
	s.Default(wl)
	if wl.Items[0].Spec.Engine != "postgres" {
		t.Errorf("WidgetList item engine = %q, want postgres", wl.Items[0].Spec.Engine)
	}
	g := &Gadget{}
	s.Default(g)
	if diff := cmp.Diff(&Gadget{}, g); diff != "" {
		t.Errorf("Gadget changed by defaulting (-want +got):\n%s", diff)
	}
}

// copySpec copies the spec's fields TestDefaultKeepsSetValues sets.
func copySpec(in WidgetSpec) WidgetSpec {
	out := in
	out.Replicas = ptr(*in.Replicas)
	out.Count = ptr(*in.Count)
	out.Tags = append([]string(nil), in.Tags...)
	return out
}

// TestDecodedDefaultIsCopied: a default decoded once (Size's Quantity) is copied into each
// object, so changing one object's value changes neither the default nor the others', and
// the copy is what decoding the JSON gives (its string form included).
func TestDecodedDefaultIsCopied(t *testing.T) {
	s := newScheme(t)
	a, b := &Widget{}, &Widget{}
	s.Default(a)
	a.Spec.Size.Add(resource.MustParse("1Gi"))
	s.Default(b)
	if got := b.Spec.Size.String(); got != "10Gi" {
		t.Errorf("second object's default = %s after the first's changed, want 10Gi", got)
	}
	if got := a.Spec.Size.String(); got != "11Gi" {
		t.Errorf("first object's size = %s, want 11Gi", got)
	}
}
