package storageversionmigrator

import (
	"context"
	"encoding/json"
	"fmt"

	svmv1 "k8s.io/api/storagemigration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// target is the served form of a migration's resource.
type target struct {
	dynamic    dynamic.Interface
	gvr        schema.GroupVersionResource // in the group's preferred version
	kind       schema.GroupVersionKind
	namespaced bool
}

// client returns the dynamic client of every object of the resource (all namespaces).
func (t *target) client() dynamic.ResourceInterface {
	return t.dynamic.Resource(t.gvr)
}

// notServedError is a migration of a resource the server does not serve: it fails.
type notServedError struct{ resource metav1.GroupResource }

// Error names the resource as Kubernetes' controller's message does.
func (e *notServedError) Error() string {
	return fmt.Sprintf("resource %s does not exist in discovery", schema.GroupResource(e.resource))
}

// resolve finds the resource's preferred served version and scope in discovery. Errors: a
// *notServedError when the server does not serve it; discovery's error when no group
// could be read at all.
func (c *Controller) resolve(res metav1.GroupResource) (*target, error) {
	groups, err := restmapper.GetAPIGroupResources(c.cfg.Discovery)
	if err != nil && len(groups) == 0 {
		return nil, fmt.Errorf("cannot read discovery: %w", err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	gvk, err := mapper.KindFor(schema.GroupVersionResource{Group: res.Group, Resource: res.Resource})
	if apimeta.IsNoMatchError(err) {
		return nil, &notServedError{resource: res}
	}
	if err != nil {
		return nil, err
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	return &target{dynamic: c.cfg.Dynamic, gvr: mapping.Resource, kind: gvk,
		namespaced: mapping.Scope.Name() == "namespace"}, nil
}

// applyConfig is the server-side apply configuration migrate sends: the object's type, and
// its uid and resourceVersion as preconditions, as Kubernetes' controller's typeMetaUIDRV.
type applyConfig struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct {
		UID             types.UID `json:"uid"`
		ResourceVersion string    `json:"resourceVersion"`
	} `json:"metadata"`
}

// migrate rewrites obj in the storage version, as Kubernetes' controller: a server-side
// apply of no fields, with obj's uid and resourceVersion as preconditions, as the field
// manager ControllerName. The server decodes the stored object, finds nothing to change,
// and stores it again: its storage encodes it in the current storage version, and only
// when those bytes differ from the stored ones is anything written (a new resourceVersion,
// a watch event), as kube-apiserver's GuaranteedUpdate. A conflict (the object changed or
// was deleted and made again since the list: it was written in the current storage
// version then) and NotFound (it is gone) are not errors.
func (c *Controller) migrate(ctx context.Context, t *target, obj *unstructured.Unstructured) error {
	var cfg applyConfig
	cfg.APIVersion, cfg.Kind = t.kind.ToAPIVersionAndKind()
	cfg.Metadata.UID, cfg.Metadata.ResourceVersion = obj.GetUID(), obj.GetResourceVersion()
	data, err := json.Marshal(&cfg)
	if err != nil {
		return err
	}
	client := t.dynamic.Resource(t.gvr)
	var rc dynamic.ResourceInterface = client
	if t.namespaced {
		rc = client.Namespace(obj.GetNamespace())
	}
	_, err = rc.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: ControllerName})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// objectName is "<namespace>/<name>", or "<name>" for a cluster-scoped object.
func objectName(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// finished reports whether svm has ended: Succeeded or Failed.
func finished(svm *svmv1.StorageVersionMigration) bool {
	return isTrue(svm, svmv1.MigrationSucceeded) || isTrue(svm, svmv1.MigrationFailed)
}

// isTrue reports whether svm's condition of type t is True.
func isTrue(svm *svmv1.StorageVersionMigration, t svmv1.MigrationConditionType) bool {
	return apimeta.IsStatusConditionTrue(svm.Status.Conditions, string(t))
}

// setCondition sets svm's condition t to status, with reason and message.
func setCondition(svm *svmv1.StorageVersionMigration, t svmv1.MigrationConditionType, status metav1.ConditionStatus, reason, message string) {
	apimeta.SetStatusCondition(&svm.Status.Conditions, metav1.Condition{Type: string(t), Status: status,
		Reason: reason, Message: message, ObservedGeneration: svm.Generation})
}

// start sets Running and status.resourceVersion (the resource's current list
// resourceVersion) on svm, and returns it as written.
func (c *Controller) start(ctx context.Context, svm *svmv1.StorageVersionMigration, t *target) (*svmv1.StorageVersionMigration, error) {
	list, err := t.client().List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("cannot list %s: %w", t.gvr, err)
	}
	var out *svmv1.StorageVersionMigration
	err = retryOnConflict(ctx, func() error {
		setCondition(svm, svmv1.MigrationRunning, metav1.ConditionTrue, reasonRunning, "")
		svm.Status.ResourceVersion = list.GetResourceVersion()
		var err error
		out, err = c.cfg.Migrations.StorageVersionMigrations().UpdateStatus(ctx, svm, metav1.UpdateOptions{FieldManager: ControllerName})
		if apierrors.IsConflict(err) {
			svm, err = c.reread(ctx, svm.Name, err)
		}
		return err
	})
	return out, err
}

// reread returns the current svm after a conflict, or the conflict when it cannot be read.
func (c *Controller) reread(ctx context.Context, name string, conflict error) (*svmv1.StorageVersionMigration, error) {
	svm, err := c.cfg.Migrations.StorageVersionMigrations().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return svm, conflict
}

// saveProgress keeps token, the next page's, in svm's ContinueAnnotation, and returns svm
// as written.
func (c *Controller) saveProgress(ctx context.Context, svm *svmv1.StorageVersionMigration, token string) (*svmv1.StorageVersionMigration, error) {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{ContinueAnnotation: token}}})
	if err != nil {
		return nil, err
	}
	return c.cfg.Migrations.StorageVersionMigrations().Patch(ctx, svm.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: ControllerName})
}

// finish ends svm with the condition t (Succeeded or Failed) True and Running False, having
// removed its progress annotation first, so that whoever sees the final condition sees no
// progress left (and a restart between the two starts the list over, rewriting nothing
// already rewritten).
func (c *Controller) finish(ctx context.Context, svm *svmv1.StorageVersionMigration, t svmv1.MigrationConditionType, reason, message string) error {
	if t == svmv1.MigrationFailed {
		c.log.Warn("storage version migration: failed", "migration", svm.Name, "reason", message)
	}
	if svm.Annotations[ContinueAnnotation] != "" {
		patch := []byte(`{"metadata":{"annotations":{"` + ContinueAnnotation + `":null}}}`)
		out, err := c.cfg.Migrations.StorageVersionMigrations().Patch(ctx, svm.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: ControllerName})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		svm = out
	}
	return retryOnConflict(ctx, func() error {
		if apimeta.FindStatusCondition(svm.Status.Conditions, string(svmv1.MigrationRunning)) != nil {
			setCondition(svm, svmv1.MigrationRunning, metav1.ConditionFalse, reason, message)
		}
		setCondition(svm, t, metav1.ConditionTrue, reason, message)
		_, err := c.cfg.Migrations.StorageVersionMigrations().UpdateStatus(ctx, svm, metav1.UpdateOptions{FieldManager: ControllerName})
		if apierrors.IsConflict(err) {
			svm, err = c.reread(ctx, svm.Name, err)
		}
		return err
	})
}
