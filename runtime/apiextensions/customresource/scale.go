package customresource

import (
	"context"
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/fieldmanager"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// scaleGVK is the kind the scale subresource serves.
var scaleGVK = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// scaleStore serves a custom resource's /scale subresource with autoscaling/v1 Scale through
// the JSON paths of the version's Scale, as apiextensions-apiserver's ScaleREST: GET reads the
// Scale; PUT and PATCH set the field at SpecReplicasPath through the main resource's update
// (its validation and generation bump), the Scale's resourceVersion a precondition.
type scaleStore struct {
	store *registry.Store
	spec  Scale
}

var (
	_ rest.Getter                   = (*scaleStore)(nil)
	_ rest.Updater                  = (*scaleStore)(nil)
	_ rest.Scoper                   = (*scaleStore)(nil)
	_ rest.GroupVersionKindProvider = (*scaleStore)(nil)
)

// New returns an empty autoscaling/v1 Scale.
func (s *scaleStore) New() runtime.Object { return &autoscalingv1.Scale{} }

// NamespaceScoped is the main resource's scope.
func (s *scaleStore) NamespaceScoped() bool { return s.store.NamespaceScoped() }

// GroupVersionKind returns autoscaling/v1 Scale for every version.
func (s *scaleStore) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind { return scaleGVK }

// Get returns the Scale of the object name. Errors: as the Store's Get.
func (s *scaleStore) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := s.store.Get(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return s.toScale(obj)
}

// Update sets the object's spec replicas from the Scale objInfo computes; it never creates.
// Errors: 404, 409 for a stale resourceVersion, 400 for a body that is not a Scale of the
// object, 422 for negative replicas or the main resource's validation.
func (s *scaleStore) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ bool,
	opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := s.store.Update(ctx, name, &scaleUpdate{s: s, name: name, inner: objInfo}, false, opts)
	if err != nil {
		return nil, false, err
	}
	out, err := s.toScale(obj)
	return out, false, err
}

// toScale reads the Scale of obj; unset replica fields read as 0.
func (s *scaleStore) toScale(obj runtime.Object) (*autoscalingv1.Scale, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("expected an unstructured object, got %T", obj))
	}
	scale := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: scaleGVK.GroupVersion().String(), Kind: scaleGVK.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp(),
		},
	}
	scale.Spec.Replicas = int32(integerAt(u, s.spec.SpecReplicasPath))
	scale.Status.Replicas = int32(integerAt(u, s.spec.StatusReplicasPath))
	if s.spec.LabelSelectorPath != "" {
		if v, found, _ := unstructured.NestedString(u.Object, splitPath(s.spec.LabelSelectorPath)...); found {
			scale.Status.Selector = v
		}
	}
	return scale, nil
}

// integerAt reads the integer at path; unset or not an integer reads as 0.
func integerAt(u *unstructured.Unstructured, path string) int64 {
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, splitPath(path)...)
	if err != nil || !found {
		return 0
	}
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}

// splitPath turns ".spec.replicas" into ["spec", "replicas"].
func splitPath(path string) []string {
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

// scaleUpdate is the rest.UpdatedObjectInfo the Store sees for a Scale update: it hands the
// current Scale (with the managedFields entries that own the replicas) to the request's
// objInfo and copies the resulting spec replicas, resourceVersion precondition and
// managedFields into the stored object, as apiextensions-apiserver's ScaleREST.
type scaleUpdate struct {
	s     *scaleStore
	name  string
	inner rest.UpdatedObjectInfo
}

// UpdatedObject returns a copy of old with the new spec replicas.
func (u *scaleUpdate) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewNotFound(u.s.store.DefaultQualifiedResource, u.name)
	}
	current, err := u.s.toScale(old)
	if err != nil {
		return nil, err
	}
	managed := fieldmanager.NewScaleHandler(ctx, u.s.store.DefaultQualifiedResource.Group,
		old.(*unstructured.Unstructured).GetManagedFields(), u.s.spec.SpecReplicasPath)
	if current.ManagedFields, err = managed.ToSubresource(); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	got, err := u.inner.UpdatedObject(ctx, current)
	if err != nil {
		return nil, err
	}
	scale, ok := got.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected an autoscaling/v1 Scale, got %T", got))
	}
	if scale.Name != "" && scale.Name != u.name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf(
			"the name of the object (%s) does not match the name on the URL (%s)", scale.Name, u.name))
	}
	if scale.Spec.Replicas < 0 {
		return nil, apierrors.NewInvalid(scaleGVK.GroupKind(), u.name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), scale.Spec.Replicas, "must be greater than or equal to 0")})
	}
	obj := old.(*unstructured.Unstructured).DeepCopy()
	if err := unstructured.SetNestedField(obj.Object, int64(scale.Spec.Replicas), splitPath(u.s.spec.SpecReplicasPath)...); err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("cannot set %s: %w", u.s.spec.SpecReplicasPath, err))
	}
	obj.SetResourceVersion(scale.ResourceVersion) // "" updates whatever is stored
	entries, err := managed.ToParent(scale.ManagedFields)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	obj.SetManagedFields(entries)
	return obj, nil
}
