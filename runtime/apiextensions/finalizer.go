package apiextensions

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	apiextensionsv1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
)

// finalize handles a deleted CRD as upstream's CRDFinalizer: Terminating=True (creates of its
// objects are refused from then on), every object deleted through the Handler, then its
// routes removed and the customresourcecleanup.apiextensions.k8s.io finalizer removed, which
// lets the store delete the CRD. retry is true while objects remain (finalizers of their
// own, or a failed delete).
func (c *controller) finalize(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (retry bool, err error) {
	gr := groupResource(crd.Spec.Group, crd.Spec.Names.Plural)
	c.ext.terminating.put(gr, true)
	if !slices.Contains(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		return false, nil // other finalizers keep it; ours is done
	}
	if err := c.setTerminating(ctx, crd, "InstanceDeletionInProgress", "CustomResource deletion is in progress"); err != nil {
		return false, err
	}
	if names := crd.Status.AcceptedNames; names.Plural != "" && names.Kind != "" {
		// Serve it (again, after a restart) so that its objects can be deleted.
		if err := c.serve(crd); err != nil {
			return false, err
		}
		remaining, err := c.ext.Handler.DeleteAll(ctx, crd.Spec.Group, crd.Spec.Names.Plural)
		if err != nil || remaining > 0 {
			msg := fmt.Sprintf("could not confirm zero CustomResources remaining: %d remaining", remaining)
			if err != nil {
				msg = fmt.Sprintf("could not delete all CustomResources: %v", err)
			}
			if serr := c.setTerminating(ctx, crd, "InstanceDeletionCheck", msg); serr != nil {
				return false, serr
			}
			return true, nil
		}
	}
	if err := c.setTerminating(ctx, crd, "InstanceDeletionCompleted", "removed all instances"); err != nil {
		return false, err
	}
	c.stopServing(crd.Name)
	_, _, err = c.ext.crds.Update(ctx, crd.Name, updateFunc(func(old runtime.Object) (runtime.Object, error) {
		o := old.(*apiextensionsv1.CustomResourceDefinition)
		o.Finalizers = slices.DeleteFunc(o.Finalizers, func(f string) bool {
			return f == apiextensionsv1.CustomResourceCleanupFinalizer
		})
		return o, nil
	}), false, &metav1.UpdateOptions{})
	return false, err
}

// setTerminating records the Terminating condition with reason and message.
func (c *controller) setTerminating(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, reason, msg string) error {
	err := c.updateStatus(ctx, crd, func(o *apiextensionsv1.CustomResourceDefinition) {
		apiextensionsv1.SetCondition(o, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Terminating,
			Status: apiextensionsv1.ConditionTrue, Reason: reason, Message: msg})
	})
	if err == nil {
		apiextensionsv1.SetCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Terminating,
			Status: apiextensionsv1.ConditionTrue, Reason: reason, Message: msg})
	}
	return err
}

// groupResource is group/resource as a schema.GroupResource.
func groupResource(group, resource string) schema.GroupResource {
	return schema.GroupResource{Group: group, Resource: resource}
}
