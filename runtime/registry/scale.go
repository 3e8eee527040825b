package registry

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/fieldmanager"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// ScaleSpec maps a kind's fields onto autoscaling/v1 Scale, as a CustomResourceDefinition's
// subresources.scale (from +kubebuilder:subresource:scale:specpath=...,statuspath=...,
// selectorpath=...). Paths are dotted JSON paths into the internal object (".spec.replicas"),
// through structs and pointers only. NewScaleStore compiles it into the kind's ScaleFields.
type ScaleSpec struct {
	// SpecReplicasPath names the desired replica count (Scale spec.replicas), an integer or
	// pointer to one; required.
	SpecReplicasPath string
	// StatusReplicasPath names the observed replica count (Scale status.replicas), an
	// integer or pointer to one; required. Unset reads as 0.
	StatusReplicasPath string
	// LabelSelectorPath names the serialized label selector of the replicas (Scale
	// status.selector), a string; optional.
	LabelSelectorPath string
}

// ScaleFields reads and sets the fields of a kind's objects that its autoscaling/v1 Scale
// maps: the reflection over typed objects NewScaleStore compiles from a ScaleSpec, or the
// unstructured paths of a custom resource's subresources.scale.
type ScaleFields interface {
	// Scale returns obj's spec replicas and status replicas (unset reads as 0) and its
	// serialized label selector ("" when none). Errors: obj is not of the kind.
	Scale(obj runtime.Object) (specReplicas, statusReplicas int32, selector string, err error)
	// SetSpecReplicas sets obj's spec replicas in place (obj is a copy the caller owns).
	// Errors: a *field.Error when replicas do not fit the field (the request is then 422),
	// any other when the field cannot be set.
	SetSpecReplicas(obj runtime.Object, replicas int32) error
	// SpecReplicasPath is the dotted JSON path of the spec replicas (".spec.replicas"),
	// the field whose managedFields entries the Scale carries.
	SpecReplicasPath() string
}

// ScaleStore serves a resource's /scale subresource with autoscaling/v1 Scale, for typed
// kinds and custom resources alike, as apiextensions-apiserver's ScaleREST: GET reads the
// Scale of the object; PUT and PATCH change only the spec replicas, through the Store's update
// (the main resource's strategy, validation and generation bump), honouring the Scale's
// resourceVersion as a precondition (409 Conflict when stale; none means unconditional).
type ScaleStore struct {
	store  *Store
	fields ScaleFields
}

var (
	_ rest.Getter                   = &ScaleStore{}
	_ rest.Updater                  = &ScaleStore{}
	_ rest.Scoper                   = &ScaleStore{}
	_ rest.GroupVersionKindProvider = &ScaleStore{}
)

// scaleGVK is the kind the subresource serves, whatever the resource's group.
var scaleGVK = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// NewScaleStore returns the /scale storage of store, a typed kind's, whose fields spec
// names. The scheme the API group is served with must know autoscaling/v1
// (autoscalingv1.AddToScheme) and its OpenAPI definitions include ScaleOpenAPIDefinitions.
// Errors: a path of spec that names no field of store.NewFunc()'s type, or a field of the
// wrong type.
func NewScaleStore(store *Store, spec ScaleSpec) (*ScaleStore, error) {
	fields, err := compileScaleSpec(store.NewFunc(), spec)
	if err != nil {
		return nil, err
	}
	return NewScaleStoreFor(store, fields), nil
}

// NewScaleStoreFor returns the /scale storage of store whose Scale fields reads and sets.
func NewScaleStoreFor(store *Store, fields ScaleFields) *ScaleStore {
	return &ScaleStore{store: store, fields: fields}
}

// New returns an empty autoscaling/v1 Scale.
func (s *ScaleStore) New() runtime.Object { return &autoscalingv1.Scale{} }

// NamespaceScoped is the main resource's scope.
func (s *ScaleStore) NamespaceScoped() bool { return s.store.NamespaceScoped() }

// GroupVersionKind returns autoscaling/v1 Scale for any containing group version.
func (s *ScaleStore) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind { return scaleGVK }

// Get returns the Scale of the object name. Errors: as Store.Get.
func (s *ScaleStore) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := s.store.Get(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return s.toScale(obj)
}

// Update sets the object's spec replicas to those of the Scale objInfo computes from the
// current Scale, and returns the new Scale; it never creates (forceAllowCreate is ignored,
// created is false). Errors: 404 NotFound, 409 Conflict for a stale resourceVersion, 400
// when the body is not a Scale or names another object, 422 for negative replicas, and
// the main resource's validation errors.
func (s *ScaleStore) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ bool,
	opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := s.store.update(ctx, s.store.Strategy, name, scaleUpdate{s: s, name: name, inner: objInfo}, false, opts)
	if err != nil {
		return nil, false, err
	}
	out, err := s.toScale(obj)
	return out, false, err
}

// toScale reads the Scale of obj.
func (s *ScaleStore) toScale(obj runtime.Object) (*autoscalingv1.Scale, error) {
	m, err := accessor(obj)
	if err != nil {
		return nil, err
	}
	spec, status, selector, err := s.fields.Scale(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	scale := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: scaleGVK.GroupVersion().String(), Kind: scaleGVK.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID(),
			ResourceVersion: m.GetResourceVersion(), CreationTimestamp: m.GetCreationTimestamp(),
		},
	}
	scale.Spec.Replicas, scale.Status.Replicas, scale.Status.Selector = spec, status, selector
	return scale, nil
}

// typedScale is the ScaleFields of a typed kind: a ScaleSpec's paths compiled to reflection.
type typedScale struct {
	spec ScaleSpec
	// specReplicas, statusReps and selector are the compiled paths; selector may be nil.
	specReplicas, statusReps, selector *fieldPath
}

// compileScaleSpec compiles spec's paths over obj's type. Errors: as NewScaleStore.
func compileScaleSpec(obj runtime.Object, spec ScaleSpec) (*typedScale, error) {
	s := &typedScale{spec: spec}
	var err error
	if s.specReplicas, err = integerPath(obj, "specpath", spec.SpecReplicasPath); err != nil {
		return nil, err
	}
	if s.statusReps, err = integerPath(obj, "statuspath", spec.StatusReplicasPath); err != nil {
		return nil, err
	}
	if spec.LabelSelectorPath != "" {
		if s.selector, err = compileFieldPath(obj, spec.LabelSelectorPath); err != nil {
			return nil, fmt.Errorf("cannot serve the scale subresource: selectorpath: %w", err)
		}
		if s.selector.leaf.Kind() != reflect.String {
			return nil, fmt.Errorf("cannot serve the scale subresource: selectorpath %s is a %s, not a string",
				spec.LabelSelectorPath, s.selector.leaf)
		}
	}
	return s, nil
}

// integerPath compiles path, which must name an integer field of obj.
func integerPath(obj runtime.Object, what, path string) (*fieldPath, error) {
	if path == "" {
		return nil, fmt.Errorf("cannot serve the scale subresource: %s is required", what)
	}
	fp, err := compileFieldPath(obj, path)
	if err != nil {
		return nil, fmt.Errorf("cannot serve the scale subresource: %s: %w", what, err)
	}
	if !isInteger(fp.leaf.Kind()) {
		return nil, fmt.Errorf("cannot serve the scale subresource: %s %s is a %s, not an integer", what, path, fp.leaf)
	}
	return fp, nil
}

// Scale reads obj's fields (ScaleFields).
func (t *typedScale) Scale(obj runtime.Object) (spec, status int32, selector string, err error) {
	if t.selector != nil {
		if v, ok := t.selector.get(obj, false); ok {
			selector = v.String()
		}
	}
	return int32(integerAt(t.specReplicas, obj)), int32(integerAt(t.statusReps, obj)), selector, nil
}

// SetSpecReplicas sets obj's spec replicas (ScaleFields).
func (t *typedScale) SetSpecReplicas(obj runtime.Object, replicas int32) error {
	v, ok := t.specReplicas.get(obj, true)
	if !ok {
		return fmt.Errorf("cannot set %s", t.spec.SpecReplicasPath)
	}
	if (v.CanInt() && v.OverflowInt(int64(replicas))) || (v.CanUint() && v.OverflowUint(uint64(replicas))) {
		return field.Invalid(field.NewPath("spec", "replicas"), replicas, fmt.Sprintf("must fit in %s", v.Type()))
	}
	if v.CanInt() {
		v.SetInt(int64(replicas))
	} else {
		v.SetUint(uint64(replicas))
	}
	return nil
}

// SpecReplicasPath returns the ScaleSpec's (ScaleFields).
func (t *typedScale) SpecReplicasPath() string { return t.spec.SpecReplicasPath }

// integerAt reads the integer at fp in obj; unset (behind a nil pointer) is 0.
func integerAt(fp *fieldPath, obj runtime.Object) int64 {
	v, ok := fp.get(obj, false)
	switch {
	case !ok:
		return 0
	case v.CanInt():
		return v.Int()
	default:
		return int64(v.Uint())
	}
}

// scaleUpdate is the rest.UpdatedObjectInfo the Store sees for a Scale update: it hands the
// current Scale (with the managedFields entries that own the replicas) to the request's
// objInfo and copies the resulting spec replicas, resourceVersion precondition and
// managedFields into the stored object, as kube-apiserver's scaleUpdatedObjectInfo.
type scaleUpdate struct {
	s     *ScaleStore
	name  string
	inner rest.UpdatedObjectInfo
}

// UpdatedObject returns a copy of old with the new spec replicas.
func (u scaleUpdate) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewNotFound(u.s.store.DefaultQualifiedResource, u.name)
	}
	current, err := u.s.toScale(old)
	if err != nil {
		return nil, err
	}
	oldMeta, err := accessor(old)
	if err != nil {
		return nil, err
	}
	managed := fieldmanager.NewScaleHandler(ctx, u.s.store.DefaultQualifiedResource.Group, oldMeta.GetManagedFields(), u.s.fields.SpecReplicasPath())
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
	obj := old.DeepCopyObject()
	if err := u.s.fields.SetSpecReplicas(obj, scale.Spec.Replicas); err != nil {
		if fe := (*field.Error)(nil); errors.As(err, &fe) {
			return nil, apierrors.NewInvalid(scaleGVK.GroupKind(), u.name, field.ErrorList{fe})
		}
		return nil, apierrors.NewInternalError(err)
	}
	m, err := accessor(obj)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion(scale.ResourceVersion) // "" updates whatever is stored
	entries, err := managed.ToParent(scale.ManagedFields)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	m.SetManagedFields(entries)
	return obj, nil
}
