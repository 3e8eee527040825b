package flowcontrol

import (
	"testing"

	flowcontrolv1 "github.com/apigen-dev/apigen/runtime/apis/flowcontrol/v1"
)

// find returns the object named name among objs.
func find[T interface{ GetName() string }](t *testing.T, objs []T, name string) T {
	t.Helper()
	for _, o := range objs {
		if o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s", name)
	var zero T
	return zero
}

// TestReconcile checks the ensurer's rules, as kube's: a mandatory object's spec is restored
// and its annotation forced to "true", except the exempt level's shares; a suggested one is
// updated only when its annotation says "true" or, without one, at generation 1, and the
// annotation is written.
func TestReconcile(t *testing.T) {
	t.Parallel()
	catchAll := find(t, mandatorySchemas, "catch-all")
	changed := catchAll.DeepCopy()
	changed.Spec.MatchingPrecedence = 42
	changed.Annotations = map[string]string{flowcontrolv1.AutoUpdateAnnotationKey: "false"}
	obj, ok := reconcile(changed, catchAll, true)
	if got := obj.(*flowcontrolv1.FlowSchema); !ok || got.Spec.MatchingPrecedence != 10000 || got.Annotations[flowcontrolv1.AutoUpdateAnnotationKey] != "true" {
		t.Errorf("mandatory catch-all changed by someone: %v, precedence %d, annotations %v", ok, got.Spec.MatchingPrecedence, got.Annotations)
	}

	exempt := find(t, mandatoryLevels, "exempt")
	mine := exempt.DeepCopy()
	shares := int32(7)
	mine.Spec.Exempt.NominalConcurrencyShares = &shares
	mine.Annotations = map[string]string{flowcontrolv1.AutoUpdateAnnotationKey: "true"}
	if obj, ok := reconcile(mine.DeepCopy(), exempt, true); ok || *obj.(*flowcontrolv1.PriorityLevelConfiguration).Spec.Exempt.NominalConcurrencyShares != 7 {
		t.Errorf("the exempt level's shares are the operator's: changed %v", ok)
	}

	global := find(t, suggestedSchemas, "global-default")
	for _, tc := range []struct {
		name       string
		annotation string // "" for none
		generation int64
		update     bool
		annotated  string
	}{
		{"annotated true", "true", 5, true, "true"},
		{"annotated false", "false", 1, false, "false"},
		{"no annotation, never changed", "", 1, true, "true"},
		{"no annotation, changed by someone", "", 2, false, "false"},
	} {
		cur := global.DeepCopy()
		cur.Spec.MatchingPrecedence = 1234
		cur.Generation = tc.generation
		cur.Annotations = nil
		if tc.annotation != "" {
			cur.Annotations = map[string]string{flowcontrolv1.AutoUpdateAnnotationKey: tc.annotation}
		}
		obj, _ := reconcile(cur, global, false)
		got := obj.(*flowcontrolv1.FlowSchema)
		if (got.Spec.MatchingPrecedence == global.Spec.MatchingPrecedence) != tc.update || got.Annotations[flowcontrolv1.AutoUpdateAnnotationKey] != tc.annotated {
			t.Errorf("%s: precedence %d (updated: want %v), annotation %q (want %q)", tc.name, got.Spec.MatchingPrecedence, tc.update,
				got.Annotations[flowcontrolv1.AutoUpdateAnnotationKey], tc.annotated)
		}
	}
}
