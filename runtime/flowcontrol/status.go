package flowcontrol

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	flowcontrolv1 "github.com/apigen-dev/apigen/runtime/apis/flowcontrol/v1"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// danglingCondition is the Dangling condition kube's configuration controller writes on a
// FlowSchema: True (reason NotFound) when the priority level it names does not exist, False
// (reason Found) when it does, with kube's messages.
func danglingCondition(fs *flowcontrolv1.FlowSchema, levelExists bool) flowcontrolv1.FlowSchemaCondition {
	name := fs.Spec.PriorityLevelConfiguration.Name
	if levelExists {
		return flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionFalse,
			Reason: "Found", Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", name)}
	}
	return flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionTrue,
		Reason: "NotFound", Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", name)}
}

// updateDangling writes the Dangling condition of every FlowSchema of the caches whose
// condition is missing or differs, through status (the flowschemas/status store). Errors:
// the first failed update but NotFound and Conflict (the next pass sees the change).
func (c *Controller) updateDangling(ctx context.Context, status rest.Updater) error {
	sc, lc := c.schemas.Load(), c.levels.Load()
	if sc == nil || lc == nil || !sc.HasSynced() || !lc.HasSynced() {
		return nil
	}
	ctx = request.WithNamespace(ctx, "")
	for _, fs := range typed[*flowcontrolv1.FlowSchema](sc.List()) {
		_, exists := lc.Get("", fs.Spec.PriorityLevelConfiguration.Name)
		want := danglingCondition(fs, exists)
		if cur := findDangling(fs); cur != nil && cur.Status == want.Status && cur.Reason == want.Reason && cur.Message == want.Message {
			continue
		}
		_, _, err := status.Update(ctx, fs.Name, danglingInfo{want: want}, false, &metav1.UpdateOptions{})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("cannot update the status of FlowSchema %s: %w", fs.Name, err)
		}
	}
	return nil
}

// findDangling returns fs's Dangling condition, or nil.
func findDangling(fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchemaCondition {
	for i := range fs.Status.Conditions {
		if fs.Status.Conditions[i].Type == flowcontrolv1.FlowSchemaConditionDangling {
			return &fs.Status.Conditions[i]
		}
	}
	return nil
}

// danglingInfo sets the Dangling condition on the stored FlowSchema (its transition time
// when the status changes).
type danglingInfo struct {
	want flowcontrolv1.FlowSchemaCondition
}

// UpdatedObject implements rest.UpdatedObjectInfo.
func (d danglingInfo) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	fs, ok := old.(*flowcontrolv1.FlowSchema)
	if !ok {
		return nil, apierrors.NewConflict(flowcontrolv1.SchemeGroupVersion.WithResource("flowschemas").GroupResource(), "", fmt.Errorf("removed while updated"))
	}
	fs = fs.DeepCopy()
	want := d.want
	want.LastTransitionTime = metav1.Now()
	if cur := findDangling(fs); cur != nil {
		if cur.Status == want.Status {
			want.LastTransitionTime = cur.LastTransitionTime
		}
		*cur = want
	} else {
		fs.Status.Conditions = append(fs.Status.Conditions, want)
	}
	return fs, nil
}
