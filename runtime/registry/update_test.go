package registry_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apigen-dev/apigen/runtime/registry/testapi"
)

func TestUpdateConflictAndUnconditional(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("ns")
	created := mustCreate(t, s, ctx, widget("w", 1))

	next := created.DeepCopyObject().(*testapi.Widget)
	next.Spec.Size = 2
	out, created2, err := s.Update(ctx, "w", replace{next}, false, nil)
	if err != nil || created2 {
		t.Fatalf("Update: %v (created %v)", err, created2)
	}
	updated := out.(*testapi.Widget)
	if updated.ResourceVersion == created.ResourceVersion || updated.Generation != 2 || updated.UID != created.UID {
		t.Errorf("updated metadata %+v", updated.ObjectMeta)
	}

	stale := created.DeepCopyObject().(*testapi.Widget) // still carries the first resourceVersion
	stale.Spec.Size = 3
	_, _, err = s.Update(ctx, "w", replace{stale}, false, nil)
	want := `Operation cannot be fulfilled on widgets.test.apigen.dev "w": the object has been modified; please apply your changes to the latest version and try again`
	if !apierrors.IsConflict(err) || err.Error() != want {
		t.Errorf("stale update: got %v, want %q", err, want)
	}

	unconditional := widget("w", 4)
	unconditional.CreationTimestamp = metav1.Now()
	out, _, err = s.Update(ctx, "w", replace{unconditional}, false, nil)
	if err != nil {
		t.Fatalf("unconditional Update: %v", err)
	}
	if got := out.(*testapi.Widget); got.Spec.Size != 4 || got.UID != created.UID || !got.CreationTimestamp.Equal(&created.CreationTimestamp) {
		t.Errorf("unconditional update lost server metadata or spec: %+v", got)
	}

	renamed := widget("other", 1)
	if _, _, err := s.Update(ctx, "w", replace{renamed}, false, nil); !apierrors.IsBadRequest(err) {
		t.Errorf("update with another name: got %v, want BadRequest", err)
	}
	invalid := widget("w", 1000)
	if _, _, err := s.Update(ctx, "w", replace{invalid}, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("invalid update: got %v, want Invalid", err)
	}
}

// readOnly is a rest.UpdatedObjectInfo that declares (registry.OldObjectPreserver) it only
// reads the stored object: it returns a changed copy and records what it was given.
type readOnly struct {
	change func(*testapi.Widget)
	given  *[]runtime.Object
}

func (r readOnly) PreservesOldObject() bool { return true }

func (r readOnly) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	*r.given = append(*r.given, old)
	w := old.DeepCopyObject().(*testapi.Widget)
	r.change(w)
	return w, nil
}

// TestUpdateOldObjectPreserver: an UpdatedObjectInfo that only reads the stored object gets
// it without a copy and the update sees the old object intact (generation +1 for a spec
// change); one that changes the object it is given (mutate) gets a copy, so the old object
// stays intact for PrepareForUpdate too.
func TestUpdateOldObjectPreserver(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("ns")
	created := mustCreate(t, s, ctx, widget("w", 1))
	var given []runtime.Object
	out, _, err := s.Update(ctx, "w", readOnly{change: func(w *testapi.Widget) { w.Spec.Size = 2 }, given: &given}, false, nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got := out.(*testapi.Widget); got.Spec.Size != 2 || got.Generation != 2 {
		t.Errorf("read-only update: size %d generation %d, want 2 and 2", got.Spec.Size, got.Generation)
	}
	if len(given) != 1 || given[0].(*testapi.Widget).Spec.Size != 1 || given[0].(*testapi.Widget).UID != created.UID {
		t.Errorf("read-only update was given %+v, want the stored widget of size 1", given)
	}
	out, _, err = s.Update(ctx, "w", mutate(func(w *testapi.Widget) { w.Spec.Size = 3 }), false, nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got := out.(*testapi.Widget); got.Spec.Size != 3 || got.Generation != 3 {
		t.Errorf("mutating update: size %d generation %d, want 3 and 3", got.Spec.Size, got.Generation)
	}
}

func TestUpdateMissing(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("ns")
	if _, _, err := s.Update(ctx, "nope", replace{widget("nope", 1)}, false, nil); !apierrors.IsNotFound(err) {
		t.Errorf("update of a missing object: got %v, want NotFound", err)
	}
	out, created, err := s.Update(ctx, "made", replace{widget("", 1)}, true, nil)
	if err != nil || !created || out.(*testapi.Widget).Name != "made" || out.(*testapi.Widget).UID == "" {
		t.Errorf("forceAllowCreate update: %v, created=%v, %+v", err, created, out)
	}
	s.AllowCreateOnUpdate = true // as Events' strategy allows
	out, created, err = s.Update(ctx, "put", replace{widget("", 1)}, false, nil)
	if err != nil || !created || out.(*testapi.Widget).Name != "put" {
		t.Errorf("update of a missing object with AllowCreateOnUpdate: %v, created=%v, %+v", err, created, out)
	}
}

func TestStatusSubresource(t *testing.T) {
	stores := newStores(t)
	ctx := nsCtx("ns")
	w := widget("w", 1)
	w.Status.Phase = "Ignored"
	created := mustCreate(t, stores.Widgets, ctx, w)
	if created.Status.Phase != "" {
		t.Errorf("create kept status %q", created.Status.Phase)
	}

	out, _, err := stores.WidgetStatus.Update(ctx, "w", mutate(func(w *testapi.Widget) {
		w.Status.Phase = "Ready"
		w.Spec.Size = 50
		w.Labels = map[string]string{"sneaky": "yes"}
	}), false, nil)
	if err != nil {
		t.Fatalf("status Update: %v", err)
	}
	if got := out.(*testapi.Widget); got.Status.Phase != "Ready" || got.Spec.Size != 1 || got.Labels != nil {
		t.Errorf("/status changed more than status: %+v", got)
	}

	out, _, err = stores.Widgets.Update(ctx, "w", mutate(func(w *testapi.Widget) {
		w.Status.Phase = "Hacked"
		w.Spec.Size = 7
	}), false, nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got := out.(*testapi.Widget); got.Status.Phase != "Ready" || got.Spec.Size != 7 {
		t.Errorf("main resource update: %+v", got)
	}
	got, err := stores.WidgetStatus.Get(ctx, "w", nil)
	if err != nil || got.(*testapi.Widget).Status.Phase != "Ready" {
		t.Errorf("status Get: %v %+v", err, got)
	}
	if _, _, err := stores.WidgetStatus.Update(ctx, "missing", mutate(func(*testapi.Widget) {}), true, nil); !apierrors.IsNotFound(err) {
		t.Errorf("status update of a missing object: got %v, want NotFound", err)
	}
}

func TestDryRun(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("ns")
	dry := []string{metav1.DryRunAll}
	out, err := s.Create(ctx, widget("dry", 1), &metav1.CreateOptions{DryRun: dry})
	if err != nil || out.(*testapi.Widget).UID == "" {
		t.Fatalf("dry-run Create: %v %+v", err, out)
	}
	if _, err := s.Get(ctx, "dry", nil); !apierrors.IsNotFound(err) {
		t.Errorf("dry-run Create stored the object: %v", err)
	}
	if _, err := s.Create(ctx, widget("dry", 500), &metav1.CreateOptions{DryRun: dry}); !apierrors.IsInvalid(err) {
		t.Errorf("dry-run Create skipped validation: %v", err)
	}

	created := mustCreate(t, s, ctx, widget("w", 1))
	out, _, err = s.Update(ctx, "w", mutate(func(w *testapi.Widget) { w.Spec.Size = 9 }), false, &metav1.UpdateOptions{DryRun: dry})
	if err != nil || out.(*testapi.Widget).Spec.Size != 9 || out.(*testapi.Widget).ResourceVersion != created.ResourceVersion {
		t.Fatalf("dry-run Update: %v %+v", err, out)
	}
	if _, deleted, err := s.Delete(ctx, "w", &metav1.DeleteOptions{DryRun: dry}); err != nil || !deleted {
		t.Fatalf("dry-run Delete: %v %v", err, deleted)
	}
	got, err := s.Get(ctx, "w", nil)
	if err != nil || got.(*testapi.Widget).Spec.Size != 1 {
		t.Errorf("dry runs changed the object: %v %+v", err, got)
	}
}

func TestDeleteFinalizersAndPreconditions(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("ns")
	w := widget("w", 1)
	w.Finalizers = []string{"test.apigen.dev/hold"}
	created := mustCreate(t, s, ctx, w)

	wrongUID := metav1.Preconditions{UID: func() *types.UID { u := types.UID("nope"); return &u }()}
	if _, _, err := s.Delete(ctx, "w", &metav1.DeleteOptions{Preconditions: &wrongUID}); !apierrors.IsConflict(err) ||
		!strings.Contains(err.Error(), "the UID in the precondition (nope) does not match the UID in record") {
		t.Errorf("delete with a wrong uid: %v", err)
	}

	out, deleted, err := s.Delete(ctx, "w", nil)
	if err != nil || deleted || out.(*testapi.Widget).DeletionTimestamp == nil {
		t.Fatalf("delete with finalizers: %v deleted=%v %+v", err, deleted, out)
	}
	again, deleted, err := s.Delete(ctx, "w", nil)
	if err != nil || deleted || !again.(*testapi.Widget).DeletionTimestamp.Equal(out.(*testapi.Widget).DeletionTimestamp) {
		t.Fatalf("second delete: %v deleted=%v", err, deleted)
	}
	if _, _, err := s.Update(ctx, "w", mutate(func(w *testapi.Widget) { w.Finalizers = nil }), false, nil); err != nil {
		t.Fatalf("removing the finalizer: %v", err)
	}
	if _, err := s.Get(ctx, "w", nil); !apierrors.IsNotFound(err) {
		t.Errorf("object still there after its last finalizer went: %v", err)
	}

	plain := mustCreate(t, s, ctx, widget("plain", 1))
	out, deleted, err = s.Delete(ctx, "plain", &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &plain.UID}})
	if err != nil || !deleted || out.(*testapi.Widget).UID != plain.UID {
		t.Fatalf("delete: %v deleted=%v", err, deleted)
	}
	if _, _, err := s.Delete(ctx, "plain", nil); !apierrors.IsNotFound(err) {
		t.Errorf("delete of a missing object: %v", err)
	}
	_ = created
}

// TestShouldDeleteDuringUpdate: an object whose last finalizer goes stays while the Store's
// ShouldDeleteDuringUpdate says no (as namespaces wait for spec.finalizers), and goes at the
// first update after it says yes.
func TestShouldDeleteDuringUpdate(t *testing.T) {
	s := newStores(t).Widgets
	s.ShouldDeleteDuringUpdate = func(obj runtime.Object) bool { return obj.(*testapi.Widget).Labels["done"] == "true" }
	ctx := nsCtx("ns")
	w := widget("w", 1)
	w.Finalizers = []string{"test.apigen.dev/hold"}
	mustCreate(t, s, ctx, w)
	if _, deleted, err := s.Delete(ctx, "w", nil); err != nil || deleted {
		t.Fatalf("delete with finalizers: %v deleted=%v", err, deleted)
	}
	if _, _, err := s.Update(ctx, "w", mutate(func(w *testapi.Widget) { w.Finalizers = nil }), false, nil); err != nil {
		t.Fatalf("removing the finalizer: %v", err)
	}
	if _, err := s.Get(ctx, "w", nil); err != nil {
		t.Fatalf("object gone although ShouldDeleteDuringUpdate said no: %v", err)
	}
	if _, _, err := s.Update(ctx, "w", mutate(func(w *testapi.Widget) { w.Labels = map[string]string{"done": "true"} }), false, nil); err != nil {
		t.Fatalf("update: %v", err)
	}
	if _, err := s.Get(ctx, "w", nil); !apierrors.IsNotFound(err) {
		t.Errorf("object still there after ShouldDeleteDuringUpdate said yes: %v", err)
	}
}
