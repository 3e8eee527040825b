package registry_test

import (
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
)

// selectableWidgets returns the Widget store with spec.color and spec.size selectable, and
// three widgets in namespace ns: a (red, 1), b (blue, 2), c (red, 3).
func selectableWidgets(t *testing.T) *registry.Store {
	t.Helper()
	s := newStores(t).Widgets
	s.SelectableFields = []string{"spec.color", "spec.size"}
	ctx := nsCtx("ns")
	for _, w := range []*testapi.Widget{widget("a", 1), widget("b", 2), widget("c", 3)} {
		if w.Name == "b" {
			w.Spec.Color = "blue"
		}
		mustCreate(t, s, ctx, w)
	}
	return s
}

// selectedNames lists the names of the widgets in ns that selector selects, sorted.
func selectedNames(t *testing.T, s *registry.Store, selector string) ([]string, error) {
	t.Helper()
	sel, err := fields.ParseSelector(selector)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.List(nsCtx("ns"), &metainternalversion.ListOptions{FieldSelector: sel})
	if err != nil {
		return nil, err
	}
	var ns []string
	for _, w := range out.(*testapi.WidgetList).Items {
		ns = append(ns, w.Name)
	}
	sort.Strings(ns)
	return ns, nil
}

func TestFieldSelectorSelectableFields(t *testing.T) {
	s := selectableWidgets(t)
	for selector, want := range map[string]string{
		"spec.color=red":                     "a,c",
		"spec.color!=red":                    "b",
		"spec.size=2":                        "b",
		"spec.color=red,metadata.name=c":     "c",
		"metadata.namespace=ns,spec.size!=1": "b,c",
		"spec.color=green":                   "",
	} {
		got, err := selectedNames(t, s, selector)
		if err != nil {
			t.Errorf("%s: %v", selector, err)
			continue
		}
		if strings.Join(got, ",") != want {
			t.Errorf("%s: got %v, want %s", selector, got, want)
		}
	}
}

func TestFieldSelectorUnsupported(t *testing.T) {
	s := selectableWidgets(t)
	_, err := selectedNames(t, s, "spec.ports=x")
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "field label not supported: spec.ports") {
		t.Errorf("unsupported field: got %v, want 400 field label not supported", err)
	}
	s.SelectableFields = nil
	if _, err := selectedNames(t, s, "spec.color=red"); !apierrors.IsBadRequest(err) {
		t.Errorf("a field that is not selectable: got %v, want 400", err)
	}
}

// TestFieldSelectorWatchTransitions watches spec.color=blue: a widget turning blue enters the
// selection (ADDED), one turning red leaves it (DELETED).
func TestFieldSelectorWatchTransitions(t *testing.T) {
	s := selectableWidgets(t)
	ctx := nsCtx("ns")
	list, err := s.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, &metainternalversion.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("spec.color", "blue"),
		ResourceVersion: list.(*testapi.WidgetList).ResourceVersion,
	})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	t.Cleanup(w.Stop)
	paint := func(name, color string) {
		if _, _, err := s.Update(ctx, name, mutate(func(w *testapi.Widget) { w.Spec.Color = color }), false, nil); err != nil {
			t.Fatalf("Update %s: %v", name, err)
		}
	}
	paint("a", "blue")
	paint("b", "red")
	for _, want := range []struct {
		typ  watch.EventType
		name string
	}{{watch.Added, "a"}, {watch.Deleted, "b"}} {
		select {
		case ev := <-w.ResultChan():
			if got := ev.Object.(*testapi.Widget); ev.Type != want.typ || got.Name != want.name {
				t.Errorf("event %s %s, want %s %s", ev.Type, got.Name, want.typ, want.name)
			}
		case <-time.After(30 * time.Second): // a bound, not a timing assertion
			t.Fatalf("no %s event for %s", want.typ, want.name)
		}
	}
}

func TestValidateSelectableFields(t *testing.T) {
	obj := &testapi.Widget{}
	if err := registry.ValidateSelectableFields(obj, []string{"spec.color", "spec.size", "metadata.name", "status.phase"}); err != nil {
		t.Errorf("valid fields: %v", err)
	}
	for field, want := range map[string]string{
		"spec.nope":  `has no field "nope"`,
		"spec.ports": "not a string, boolean or integer",
		"spec":       "not a string, boolean or integer",
	} {
		if err := registry.ValidateSelectableFields(obj, []string{field}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", field, err, want)
		}
	}
}
