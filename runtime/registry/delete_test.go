package registry_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
)

func policy(p metav1.DeletionPropagation) *metav1.DeleteOptions {
	return &metav1.DeleteOptions{PropagationPolicy: &p}
}

func orphanDependents(orphan bool) *metav1.DeleteOptions {
	return &metav1.DeleteOptions{OrphanDependents: &orphan} //nolint:staticcheck // the deprecated field is what is tested
}

// TestDeletePropagationPolicy: each propagationPolicy (and the deprecated orphanDependents)
// leaves the finalizers kube-apiserver's Store leaves, keeps the object when any is left
// (deletionTimestamp set, deletionGracePeriodSeconds 0, generation bumped once) and removes
// it otherwise; a later delete switches the policy of a pending deletion.
func TestDeletePropagationPolicy(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("ns")
	for _, tc := range []struct {
		name           string
		finalizers     []string
		opts           *metav1.DeleteOptions
		wantFinalizers []string // nil: removed
	}{
		{"background", nil, policy(metav1.DeletePropagationBackground), nil},
		{"no options", nil, &metav1.DeleteOptions{}, nil},
		{"foreground", nil, policy(metav1.DeletePropagationForeground), []string{metav1.FinalizerDeleteDependents}},
		{"orphan", nil, policy(metav1.DeletePropagationOrphan), []string{metav1.FinalizerOrphanDependents}},
		{"orphanDependents true", nil, orphanDependents(true), []string{metav1.FinalizerOrphanDependents}},
		{"orphanDependents false", nil, orphanDependents(false), nil},
		{"orphan beside another finalizer", []string{"x.test/hold"}, policy(metav1.DeletePropagationOrphan),
			[]string{"x.test/hold", metav1.FinalizerOrphanDependents}},
		{"background keeps another finalizer", []string{"x.test/hold"}, policy(metav1.DeletePropagationBackground), []string{"x.test/hold"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := widget(strings.ToLower(strings.ReplaceAll(tc.name, " ", "-")), 1)
			w.Finalizers = tc.finalizers
			created := mustCreate(t, s, ctx, w)
			out, deleted, err := s.Delete(ctx, w.Name, tc.opts)
			if err != nil {
				t.Fatalf("Delete: %v", err)
			}
			got := out.(*testapi.Widget)
			if tc.wantFinalizers == nil {
				if !deleted {
					t.Fatalf("deleted=false, finalizers %v", got.Finalizers)
				}
				if _, err := s.Get(ctx, w.Name, nil); !apierrors.IsNotFound(err) {
					t.Errorf("object still stored: %v", err)
				}
				return
			}
			stored, err := s.Get(ctx, w.Name, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []*testapi.Widget{got, stored.(*testapi.Widget)} {
				if deleted || !slices.Equal(o.Finalizers, tc.wantFinalizers) || o.DeletionTimestamp == nil ||
					o.DeletionGracePeriodSeconds == nil || *o.DeletionGracePeriodSeconds != 0 || o.Generation != created.Generation+1 {
					t.Errorf("deleted=%v finalizers %v deletionTimestamp %v grace %v generation %d (was %d); want kept with %v",
						deleted, o.Finalizers, o.DeletionTimestamp, o.DeletionGracePeriodSeconds, o.Generation, created.Generation, tc.wantFinalizers)
				}
			}
		})
	}

	mustCreate(t, s, ctx, widget("switch", 1))
	if _, deleted, err := s.Delete(ctx, "switch", policy(metav1.DeletePropagationOrphan)); err != nil || deleted {
		t.Fatalf("orphan delete: %v deleted=%v", err, deleted)
	}
	out, deleted, err := s.Delete(ctx, "switch", policy(metav1.DeletePropagationForeground))
	if err != nil || deleted || !slices.Equal(out.(*testapi.Widget).Finalizers, []string{metav1.FinalizerDeleteDependents}) {
		t.Fatalf("foreground delete of an orphaning object: %v deleted=%v %+v", err, deleted, out)
	}
	if out.(*testapi.Widget).Generation != 2 {
		t.Errorf("generation bumped again by the second delete: %d", out.(*testapi.Widget).Generation)
	}
	if _, deleted, err := s.Delete(ctx, "switch", policy(metav1.DeletePropagationBackground)); err != nil || !deleted {
		t.Fatalf("background delete of an object only the GC finalizer kept: %v deleted=%v", err, deleted)
	}
}

// TestDeleteOptionsValidation: invalid DeleteOptions are a 422 with apimachinery's wording,
// before the object is looked at, and change nothing.
func TestDeleteOptionsValidation(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("ns")
	mustCreate(t, s, ctx, widget("w", 1))
	both := policy(metav1.DeletePropagationOrphan)
	yes := true
	both.OrphanDependents = &yes //nolint:staticcheck // the deprecated field is what is tested
	for _, tc := range []struct {
		name, object string
		opts         *metav1.DeleteOptions
		want         string
	}{
		{"unknown policy", "w", policy("Sideways"),
			`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"`},
		{"unknown policy, missing object", "missing", policy("Sideways"), `propagationPolicy: Unsupported value: "Sideways"`},
		{"both", "w", both, "propagationPolicy: Invalid value: \"Orphan\": orphanDependents and deletionPropagation cannot be both set"},
	} {
		_, _, err := s.Delete(ctx, tc.object, tc.opts)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want 422 %q", tc.name, err, tc.want)
		}
	}
	if got, err := s.Get(ctx, "w", nil); err != nil || got.(*testapi.Widget).DeletionTimestamp != nil {
		t.Errorf("invalid deletes changed the object: %v %+v", err, got)
	}
}

// TestDeleteDryRunAndPreconditions: a dry-run foreground delete returns the object as it
// would be kept and stores nothing; a resourceVersion precondition holds across the update a
// delete makes; a stale one is a 409 in kube-apiserver's words.
func TestDeleteDryRunAndPreconditions(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("ns")
	created := mustCreate(t, s, ctx, widget("w", 1))
	dry := policy(metav1.DeletePropagationForeground)
	dry.DryRun = []string{metav1.DryRunAll}
	out, deleted, err := s.Delete(ctx, "w", dry)
	if err != nil || deleted || out.(*testapi.Widget).DeletionTimestamp == nil ||
		!slices.Equal(out.(*testapi.Widget).Finalizers, []string{metav1.FinalizerDeleteDependents}) {
		t.Fatalf("dry-run foreground delete: %v deleted=%v %+v", err, deleted, out)
	}
	if got, _ := s.Get(ctx, "w", nil); got.(*testapi.Widget).DeletionTimestamp != nil || got.(*testapi.Widget).Finalizers != nil {
		t.Fatalf("dry run stored its changes: %+v", got)
	}

	stale := "1"
	opts := policy(metav1.DeletePropagationForeground)
	opts.Preconditions = &metav1.Preconditions{ResourceVersion: &stale}
	_, _, err = s.Delete(ctx, "w", opts)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(),
		`Operation cannot be fulfilled on Widget.test.apigen.dev "w": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (`+created.ResourceVersion+`). The object might have been modified`) {
		t.Errorf("stale resourceVersion precondition: %v", err)
	}
	opts.Preconditions = &metav1.Preconditions{ResourceVersion: &created.ResourceVersion, UID: &created.UID}
	if _, deleted, err := s.Delete(ctx, "w", opts); err != nil || deleted {
		t.Fatalf("foreground delete with preconditions: %v deleted=%v", err, deleted)
	}
	// The deletion of an object whose deletion updated it once: the update moves
	// resourceVersion on, the removal must not fail on the precondition the client gave.
	holder := widget("held", 1)
	holder.Finalizers = []string{metav1.FinalizerOrphanDependents}
	held := mustCreate(t, s, ctx, holder)
	bg := policy(metav1.DeletePropagationBackground)
	bg.Preconditions = &metav1.Preconditions{ResourceVersion: &held.ResourceVersion}
	if _, deleted, err := s.Delete(ctx, "held", bg); err != nil || !deleted {
		t.Fatalf("background delete dropping the orphan finalizer, with an rv precondition: %v deleted=%v", err, deleted)
	}
}

// policyStrategy is the Widget strategy with a default garbage collection policy.
type policyStrategy struct {
	testapi.WidgetStrategy
	policy registry.GarbageCollectionPolicy
}

func (s policyStrategy) DefaultGarbageCollectionPolicy(context.Context) registry.GarbageCollectionPolicy {
	return s.policy
}

// TestDefaultGarbageCollectionPolicy: a kind that orphans by default gets the orphan
// finalizer from a delete without a policy, not from one with Background; a kind whose policy
// is Unsupported never gets a GC finalizer.
func TestDefaultGarbageCollectionPolicy(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("ns")
	s.Strategy = policyStrategy{policy: registry.OrphanDependents}
	mustCreate(t, s, ctx, widget("orphaned", 1))
	out, deleted, err := s.Delete(ctx, "orphaned", &metav1.DeleteOptions{})
	if err != nil || deleted || !slices.Equal(out.(*testapi.Widget).Finalizers, []string{metav1.FinalizerOrphanDependents}) {
		t.Errorf("delete of an orphaning kind: %v deleted=%v %+v", err, deleted, out)
	}
	mustCreate(t, s, ctx, widget("background", 1))
	if _, deleted, err := s.Delete(ctx, "background", policy(metav1.DeletePropagationBackground)); err != nil || !deleted {
		t.Errorf("background delete of an orphaning kind: %v deleted=%v", err, deleted)
	}

	s.Strategy = policyStrategy{policy: registry.Unsupported}
	mustCreate(t, s, ctx, widget("unsupported", 1))
	if _, deleted, err := s.Delete(ctx, "unsupported", policy(metav1.DeletePropagationForeground)); err != nil || !deleted {
		t.Errorf("foreground delete of a kind without garbage collection: %v deleted=%v", err, deleted)
	}
}

// gracefulStrategy is the Widget strategy with graceful deletion, 30 seconds by default.
type gracefulStrategy struct{ testapi.WidgetStrategy }

func (gracefulStrategy) CheckGracefulDelete(_ context.Context, _ runtime.Object, opts *metav1.DeleteOptions) bool {
	if opts.GracePeriodSeconds == nil {
		period := int64(30)
		opts.GracePeriodSeconds = &period
	}
	return true
}

func gracePeriod(seconds int64) *metav1.DeleteOptions {
	return &metav1.DeleteOptions{GracePeriodSeconds: &seconds}
}

// TestGracefulDeletion: a kind deleted gracefully stays with deletionTimestamp now+grace and
// deletionGracePeriodSeconds; a longer grace period later changes nothing, a shorter one moves
// deletionTimestamp earlier, zero removes it. A kind that is not deleted gracefully ignores
// gracePeriodSeconds.
func TestGracefulDeletion(t *testing.T) {
	s := newStores(t).Widgets
	ctx := nsCtx("ns")
	mustCreate(t, s, ctx, widget("plain", 1))
	if _, deleted, err := s.Delete(ctx, "plain", gracePeriod(30)); err != nil || !deleted {
		t.Fatalf("graceful delete of a kind without graceful deletion: %v deleted=%v", err, deleted)
	}

	s.Strategy = gracefulStrategy{}
	created := mustCreate(t, s, ctx, widget("w", 1))
	before := time.Now()
	out, deleted, err := s.Delete(ctx, "w", &metav1.DeleteOptions{})
	if err != nil || deleted {
		t.Fatalf("graceful delete: %v deleted=%v", err, deleted)
	}
	w := out.(*testapi.Widget)
	if w.DeletionGracePeriodSeconds == nil || *w.DeletionGracePeriodSeconds != 30 || w.Generation != created.Generation+1 ||
		w.DeletionTimestamp.Time.Before(before.Add(29*time.Second)) || w.DeletionTimestamp.Time.After(time.Now().Add(31*time.Second)) {
		t.Fatalf("graceful delete: deletionTimestamp %v (asked at %v) grace %v generation %d", w.DeletionTimestamp, before, w.DeletionGracePeriodSeconds, w.Generation)
	}
	again, deleted, err := s.Delete(ctx, "w", gracePeriod(60))
	if err != nil || deleted || !again.(*testapi.Widget).DeletionTimestamp.Equal(w.DeletionTimestamp) || *again.(*testapi.Widget).DeletionGracePeriodSeconds != 30 {
		t.Fatalf("longer grace period: %v deleted=%v %+v", err, deleted, again)
	}
	shorter, deleted, err := s.Delete(ctx, "w", gracePeriod(10))
	sw := shorter.(*testapi.Widget)
	if err != nil || deleted || *sw.DeletionGracePeriodSeconds != 10 || !sw.DeletionTimestamp.Time.Equal(w.DeletionTimestamp.Add(-20*time.Second)) {
		t.Fatalf("shorter grace period: %v deleted=%v deletionTimestamp %v grace %v", err, deleted, sw.DeletionTimestamp, sw.DeletionGracePeriodSeconds)
	}
	if _, deleted, err := s.Delete(ctx, "w", gracePeriod(0)); err != nil || !deleted {
		t.Fatalf("zero grace period: %v deleted=%v", err, deleted)
	}
	if _, err := s.Get(ctx, "w", nil); !apierrors.IsNotFound(err) {
		t.Errorf("object still stored after a zero grace period: %v", err)
	}

	// Finalizers keep a gracefully deleted object even at zero grace.
	held := widget("held", 1)
	held.Finalizers = []string{"x.test/hold"}
	mustCreate(t, s, ctx, held)
	out, deleted, err = s.Delete(ctx, "held", gracePeriod(0))
	if err != nil || deleted || out.(*testapi.Widget).DeletionTimestamp == nil {
		t.Fatalf("zero-grace delete of an object with finalizers: %v deleted=%v %+v", err, deleted, out)
	}
}
