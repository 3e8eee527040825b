package namespace

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
)

// deletionConditions returns the conditions kube's namespace controller reports on a
// terminating namespace, for one pass that left remaining objects or failed with err:
// NamespaceDeletionContentFailure and NamespaceContentRemaining, with kube's reasons
// (NamespaceFinalizersRemaining is not reported: a ContentDeleter returns counts only).
func deletionConditions(remaining int, err error) []corev1.NamespaceCondition {
	failure := corev1.NamespaceCondition{Type: corev1.NamespaceDeletionContentFailure, Status: metav1.ConditionFalse,
		Reason: "ContentDeleted", Message: "All content successfully deleted, may be waiting on finalization"}
	if err != nil {
		failure.Status, failure.Reason, failure.Message = metav1.ConditionTrue, "ContentDeletionFailed", err.Error()
	}
	content := corev1.NamespaceCondition{Type: corev1.NamespaceContentRemaining, Status: metav1.ConditionFalse,
		Reason: "ContentRemoved", Message: "All content successfully removed"}
	switch {
	case err != nil:
		content.Status, content.Reason, content.Message = metav1.ConditionUnknown, "ContentDeletionFailed", "Content deletion failed"
	case remaining > 0:
		content.Status, content.Reason = metav1.ConditionTrue, "SomeResourcesRemain"
		content.Message = fmt.Sprintf("Some resources are remaining: %d resource instances", remaining)
	}
	return []corev1.NamespaceCondition{failure, content}
}

// setConditions returns old's conditions with want merged in (by type), keeping
// lastTransitionTime where the status did not change, and whether anything changed.
func setConditions(old []corev1.NamespaceCondition, want []corev1.NamespaceCondition, now metav1.Time) ([]corev1.NamespaceCondition, bool) {
	out := append([]corev1.NamespaceCondition{}, old...)
	changed := false
	for _, w := range want {
		i := 0
		for i < len(out) && out[i].Type != w.Type {
			i++
		}
		if i == len(out) {
			w.LastTransitionTime = now
			out, changed = append(out, w), true
			continue
		}
		cur := out[i]
		if cur.Status == w.Status && cur.Reason == w.Reason && cur.Message == w.Message {
			continue
		}
		w.LastTransitionTime = cur.LastTransitionTime
		if cur.Status != w.Status {
			w.LastTransitionTime = now
		}
		out[i], changed = w, true
	}
	return out, changed
}

// reportConditions writes the conditions of one pass to the namespace's status through
// c.status, when set and when they changed; the namespace of another uid is left alone.
// Errors are logged: conditions are informational.
func (c *Controller) reportConditions(ctx context.Context, ns *corev1.Namespace, remaining int, passErr error) {
	if c.status == nil {
		return
	}
	want := deletionConditions(remaining, passErr)
	if _, changed := setConditions(ns.Status.Conditions, want, metav1.Now()); !changed {
		return
	}
	_, _, err := c.status.Update(ctx, ns.Name, conditionsUpdate{ns: ns, want: want}, false, &metav1.UpdateOptions{})
	if err != nil && ctx.Err() == nil {
		c.log.Debug("namespace controller: cannot report conditions", "namespace", ns.Name, "err", err)
	}
}

// conditionsUpdate merges want into the stored conditions of ns (the same namespace: same uid).
type conditionsUpdate struct {
	ns   *corev1.Namespace
	want []corev1.NamespaceCondition
}

// UpdatedObject returns old with the conditions merged; a Conflict for another namespace of
// the same name.
func (u conditionsUpdate) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	ns, ok := old.(*corev1.Namespace)
	if !ok || ns == nil || ns.UID != u.ns.UID {
		return nil, errUIDChangedConflict(u.ns.Name)
	}
	ns.Status.Conditions, _ = setConditions(ns.Status.Conditions, u.want, metav1.Now().Rfc3339Copy())
	return ns, nil
}
