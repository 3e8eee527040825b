package registry_test

import (
	"context"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
)

// widgetScale maps Scale onto Widget: the test kind has no observed count, so status
// replicas read spec.size too; the selector is spec.color.
var widgetScale = registry.ScaleSpec{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".spec.size", LabelSelectorPath: ".spec.color"}

// setScale is a rest.UpdatedObjectInfo that changes the current Scale.
type setScale func(*autoscalingv1.Scale)

func (f setScale) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	s := old.(*autoscalingv1.Scale)
	f(s)
	return s, nil
}

func newScaleStore(t *testing.T) (*registry.Store, *registry.ScaleStore) {
	t.Helper()
	widgets := newStores(t).Widgets
	scale, err := registry.NewScaleStore(widgets, widgetScale)
	if err != nil {
		t.Fatalf("NewScaleStore: %v", err)
	}
	return widgets, scale
}

func TestScaleGet(t *testing.T) {
	widgets, scale := newScaleStore(t)
	ctx := nsCtx("ns")
	created := mustCreate(t, widgets, ctx, widget("w", 3))
	out, err := scale.Get(ctx, "w", &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	got := out.(*autoscalingv1.Scale)
	if got.Name != "w" || got.Namespace != "ns" || got.UID != created.UID || got.ResourceVersion != created.ResourceVersion ||
		!got.CreationTimestamp.Equal(&created.CreationTimestamp) {
		t.Errorf("scale metadata %+v, want the object's %+v", got.ObjectMeta, created.ObjectMeta)
	}
	if got.Spec.Replicas != 3 || got.Status.Replicas != 3 || got.Status.Selector != "red" {
		t.Errorf("scale spec %+v status %+v, want replicas 3, selector red", got.Spec, got.Status)
	}
	if _, err := scale.Get(ctx, "nope", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get of a missing object: got %v, want NotFound", err)
	}
	if gvk := scale.GroupVersionKind(schema.GroupVersion{Group: "test.apigen.dev", Version: "v1"}); gvk != autoscalingv1.SchemeGroupVersion.WithKind("Scale") {
		t.Errorf("GroupVersionKind = %v, want autoscaling/v1 Scale", gvk)
	}
}

func TestScaleUpdate(t *testing.T) {
	widgets, scale := newScaleStore(t)
	ctx := nsCtx("ns")
	created := mustCreate(t, widgets, ctx, widget("w", 3))

	out, isCreated, err := scale.Update(ctx, "w", setScale(func(s *autoscalingv1.Scale) { s.Spec.Replicas = 7 }), false, nil)
	if err != nil || isCreated {
		t.Fatalf("Update: %v (created %v)", err, isCreated)
	}
	got := out.(*autoscalingv1.Scale)
	if got.Spec.Replicas != 7 || got.ResourceVersion == created.ResourceVersion {
		t.Errorf("updated scale %+v, want replicas 7 and a new resourceVersion", got)
	}
	stored, err := widgets.Get(ctx, "w", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := stored.(*testapi.Widget)
	if w.Spec.Size != 7 || w.Spec.Color != "red" || w.Generation != 2 || w.ResourceVersion != got.ResourceVersion {
		t.Errorf("stored widget %+v %+v, want size 7, color red, generation 2, resourceVersion %s",
			w.Spec, w.ObjectMeta, got.ResourceVersion)
	}

	// Only spec replicas are written: a changed selector or status in the body is ignored.
	out, _, err = scale.Update(ctx, "w", setScale(func(s *autoscalingv1.Scale) {
		s.Spec.Replicas, s.Status.Selector, s.Status.Replicas = 8, "blue", 99
	}), false, nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got := out.(*autoscalingv1.Scale); got.Spec.Replicas != 8 || got.Status.Selector != "red" || got.Status.Replicas != 8 {
		t.Errorf("scale after an update of status fields: %+v", got)
	}
}

func TestScaleUpdateConflict(t *testing.T) {
	widgets, scale := newScaleStore(t)
	ctx := nsCtx("ns")
	created := mustCreate(t, widgets, ctx, widget("w", 3))
	if _, _, err := scale.Update(ctx, "w", setScale(func(s *autoscalingv1.Scale) { s.Spec.Replicas = 4 }), false, nil); err != nil {
		t.Fatal(err)
	}
	stale := setScale(func(s *autoscalingv1.Scale) { s.ResourceVersion, s.Spec.Replicas = created.ResourceVersion, 5 })
	_, _, err := scale.Update(ctx, "w", stale, false, nil)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "the object has been modified") {
		t.Errorf("stale scale update: got %v, want Conflict", err)
	}
	unconditional := setScale(func(s *autoscalingv1.Scale) { s.ResourceVersion, s.Spec.Replicas = "", 6 })
	out, _, err := scale.Update(ctx, "w", unconditional, false, nil)
	if err != nil || out.(*autoscalingv1.Scale).Spec.Replicas != 6 {
		t.Errorf("scale update without resourceVersion: %v, %+v", err, out)
	}
}

func TestScaleUpdateRejected(t *testing.T) {
	widgets, scale := newScaleStore(t)
	ctx := nsCtx("ns")
	mustCreate(t, widgets, ctx, widget("w", 3))
	for _, tc := range []struct {
		name  string
		name2 string
		set   func(*autoscalingv1.Scale)
		is    func(error) bool
	}{
		{"negative replicas", "w", func(s *autoscalingv1.Scale) { s.Spec.Replicas = -1 }, apierrors.IsInvalid},
		{"the kind's validation (size <= 100)", "w", func(s *autoscalingv1.Scale) { s.Spec.Replicas = 1000 }, apierrors.IsInvalid},
		{"another object's name", "w", func(s *autoscalingv1.Scale) { s.Name, s.Spec.Replicas = "other", 4 }, apierrors.IsBadRequest},
		{"a missing object", "nope", func(s *autoscalingv1.Scale) { s.Spec.Replicas = 4 }, apierrors.IsNotFound},
	} {
		if _, _, err := scale.Update(ctx, tc.name2, setScale(tc.set), false, nil); !tc.is(err) {
			t.Errorf("%s: got %v", tc.name, err)
		}
	}
	stored, err := widgets.Get(ctx, "w", &metav1.GetOptions{})
	if err != nil || stored.(*testapi.Widget).Spec.Size != 3 {
		t.Errorf("a rejected scale update changed the object: %v, %+v", err, stored)
	}
}

func TestScaleUpdateDryRun(t *testing.T) {
	widgets, scale := newScaleStore(t)
	ctx := nsCtx("ns")
	created := mustCreate(t, widgets, ctx, widget("w", 3))
	out, _, err := scale.Update(ctx, "w", setScale(func(s *autoscalingv1.Scale) { s.Spec.Replicas = 9 }), false,
		&metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || out.(*autoscalingv1.Scale).Spec.Replicas != 9 {
		t.Fatalf("dry-run scale update: %v, %+v", err, out)
	}
	stored, err := widgets.Get(ctx, "w", &metav1.GetOptions{})
	if err != nil || stored.(*testapi.Widget).Spec.Size != 3 || stored.(*testapi.Widget).ResourceVersion != created.ResourceVersion {
		t.Errorf("a dry-run scale update was persisted: %v, %+v", err, stored)
	}
}

func TestNewScaleStoreBadPaths(t *testing.T) {
	widgets := newStores(t).Widgets
	for _, tc := range []struct {
		spec registry.ScaleSpec
		want string
	}{
		{registry.ScaleSpec{StatusReplicasPath: ".spec.size"}, "specpath is required"},
		{registry.ScaleSpec{SpecReplicasPath: ".spec.nope", StatusReplicasPath: ".spec.size"}, `has no field "nope"`},
		{registry.ScaleSpec{SpecReplicasPath: ".spec.color", StatusReplicasPath: ".spec.size"}, "not an integer"},
		{registry.ScaleSpec{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".spec.ports.port"}, "is not an object"},
		{registry.ScaleSpec{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".spec.size", LabelSelectorPath: ".spec.size"}, "not a string"},
	} {
		_, err := registry.NewScaleStore(widgets, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewScaleStore(%+v): got %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
}
