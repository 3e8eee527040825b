package registry

import (
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateMetaUpdate returns validation.ValidateObjectMetaAccessorUpdate(m, old, metadata):
// kube-apiserver's checks that an update keeps name, namespace, uid, creationTimestamp and
// the deletion fields, specifies a resourceVersion, does not decrement generation and adds no
// finalizer to an object being deleted. When metaUpdateHolds proves there is nothing to
// report, as after updateExisting has copied those fields from old, it answers without
// calling it (which compares each field by reflection).
func validateMetaUpdate(m, old metav1.Object) field.ErrorList {
	if metaUpdateHolds(m, old) {
		return nil
	}
	return validation.ValidateObjectMetaAccessorUpdate(m, old, field.NewPath("metadata"))
}

// metaUpdateHolds reports whether ValidateObjectMetaAccessorUpdate(m, old) certainly finds
// nothing: every field it compares is equal as apimachinery's equality.Semantic compares it
// (metav1.Time by UTC()), and the object is not being deleted (then finalizers are compared
// too). False means: ask ValidateObjectMetaAccessorUpdate.
func metaUpdateHolds(m, old metav1.Object) bool {
	return old.GetDeletionTimestamp() == nil && m.GetDeletionTimestamp() == nil &&
		m.GetDeletionGracePeriodSeconds() == nil && old.GetDeletionGracePeriodSeconds() == nil &&
		m.GetResourceVersion() != "" && m.GetGeneration() >= old.GetGeneration() &&
		m.GetName() == old.GetName() && m.GetNamespace() == old.GetNamespace() && m.GetUID() == old.GetUID() &&
		sameTime(m.GetCreationTimestamp(), old.GetCreationTimestamp())
}

// sameTime is equality.Semantic's comparison of two metav1.Time values.
func sameTime(a, b metav1.Time) bool {
	return a.UTC() == b.UTC()
}
