package namespace

import (
	"context"
	"slices"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	"github.com/apigen-dev/apigen/runtime/registry"
)

// strategy wraps the generated Namespace strategy with kube's namespaceStrategy rules
// (pkg/registry/core/namespace/strategy.go): a new namespace is Active and carries the
// "kubernetes" finalizer; an update keeps spec.finalizers and status (they change only
// through /finalize and /status).
type strategy struct {
	registry.Strategy
}

// PrepareForCreate runs the generated strategy, then sets status.phase=Active, adds the
// "kubernetes" finalizer to spec.finalizers when missing, clears generation and sets the
// kubernetes.io/metadata.name label.
func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.Strategy.PrepareForCreate(ctx, obj)
	ns := obj.(*corev1.Namespace)
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	ns.Generation = 0 // Kubernetes' namespaces carry no generation
	setNameLabel(ns)
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
	}
}

// PrepareForUpdate runs the generated strategy, then keeps spec.finalizers, status and
// generation from old and sets the kubernetes.io/metadata.name label again.
func (s strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.Strategy.PrepareForUpdate(ctx, obj, old)
	newNs, oldNs := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	newNs.Spec.Finalizers = oldNs.Spec.Finalizers
	newNs.Status = oldNs.Status
	newNs.Generation = oldNs.Generation
	setNameLabel(newNs)
}

// GetResetFields returns status: a write of the namespace never owns it, as kube's
// namespaceStrategy.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return namespaceResetFields("status")
}

// namespaceResetFields returns the top-level field name of core v1 Namespaces.
func namespaceResetFields(name string) map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{"v1": fieldpath.NewSet(fieldpath.MakePathOrDie(name))}
}

// LabelMetadataName is the label every namespace carries with its own name, as Kubernetes'
// (k8s.io/api/core/v1.LabelMetadataName), so that label selectors can pick namespaces by name.
const LabelMetadataName = "kubernetes.io/metadata.name"

// setNameLabel sets the LabelMetadataName label to ns's name, as kube's namespace strategy
// Canonicalize. A namespace created with generateName only gets it on its first update:
// the name is drawn after PrepareForCreate.
func setNameLabel(ns *corev1.Namespace) {
	if ns.Name == "" {
		return
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[LabelMetadataName] = ns.Name
}

// Validate runs the generated validation and checks spec.finalizers' names.
func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return append(s.Strategy.Validate(ctx, obj), validateFinalizers(obj.(*corev1.Namespace))...)
}

// ValidateUpdate runs the generated validation and checks spec.finalizers' names.
func (s strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return append(s.Strategy.ValidateUpdate(ctx, obj, old), validateFinalizers(obj.(*corev1.Namespace))...)
}

// finalizeStrategy is kube's namespaceFinalizeStrategy: an update through /finalize changes
// spec.finalizers and nothing else.
type finalizeStrategy struct {
	registry.Strategy
}

// PrepareForUpdate keeps everything of old but spec.finalizers (resourceVersion included,
// which the store has already checked against the request's).
func (finalizeStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	newNs, oldNs := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	finalizers := newNs.Spec.Finalizers
	rv := newNs.ResourceVersion
	*newNs = *oldNs.DeepCopy()
	newNs.Spec.Finalizers = finalizers
	newNs.ResourceVersion = rv
}

// GetResetFields returns status, as kube's namespaceFinalizeStrategy.
func (finalizeStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return namespaceResetFields("status")
}

// ValidateUpdate runs the generated validation and checks spec.finalizers' names.
func (s finalizeStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return append(s.Strategy.ValidateUpdate(ctx, obj, old), validateFinalizers(obj.(*corev1.Namespace))...)
}

// statusStrategy is kube's namespaceStatusStrategy: an update through /status changes status
// only, and the phase must agree with deletionTimestamp.
type statusStrategy struct {
	registry.Strategy
}

// PrepareForUpdate keeps spec and the metadata a status writer may not change from old.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	newNs, oldNs := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	newNs.Spec = oldNs.Spec
	metav1.ResetObjectMetaForStatus(newNs, oldNs)
}

// GetResetFields returns spec: a write of /status never owns it, as kube's
// namespaceStatusStrategy.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return namespaceResetFields("spec")
}

// ValidateUpdate runs the generated validation and requires status.phase Active without a
// deletionTimestamp and Terminating with one, as kube's ValidateNamespaceStatusUpdate.
func (s statusStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	errs := s.Strategy.ValidateUpdate(ctx, obj, old)
	ns := obj.(*corev1.Namespace)
	phase := field.NewPath("status", "phase")
	switch {
	case ns.DeletionTimestamp == nil && ns.Status.Phase != corev1.NamespaceActive:
		errs = append(errs, field.Invalid(phase, ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty"))
	case ns.DeletionTimestamp != nil && ns.Status.Phase != corev1.NamespaceTerminating:
		errs = append(errs, field.Invalid(phase, ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))
	}
	return errs
}

// validateFinalizers checks that every spec.finalizers entry is a qualified name, as kube's
// ValidateNamespace (validateFinalizerName).
func validateFinalizers(ns *corev1.Namespace) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec", "finalizers")
	for i, f := range ns.Spec.Finalizers {
		errs = append(errs, apivalidation.ValidateFinalizerName(string(f), path.Index(i))...)
	}
	return errs
}
