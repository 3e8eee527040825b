package v1

import (
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateSubjectAccessReview is the hand-written validation of a SubjectAccessReview, as
// kube's authorization validation.ValidateSubjectAccessReview; the generated strategy calls it
// on create. Errors, each a field error of the 422 Invalid status: both or neither of
// spec.resourceAttributes and spec.nonResourceAttributes; neither spec.user nor spec.groups;
// metadata other than empty.
func ValidateSubjectAccessReview(obj *SubjectAccessReview) field.ErrorList {
	errs := validateSpec(obj.Spec.ResourceAttributes, obj.Spec.NonResourceAttributes)
	if obj.Spec.User == "" && len(obj.Spec.Groups) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "user"), obj.Spec.User, `at least one of user or group must be specified`))
	}
	return append(errs, metadataEmpty(obj.ObjectMeta, false)...)
}

// ValidateSelfSubjectAccessReview is kube's ValidateSelfSubjectAccessReview: both or neither
// of spec.resourceAttributes and spec.nonResourceAttributes; metadata other than empty.
func ValidateSelfSubjectAccessReview(obj *SelfSubjectAccessReview) field.ErrorList {
	errs := validateSpec(obj.Spec.ResourceAttributes, obj.Spec.NonResourceAttributes)
	return append(errs, metadataEmpty(obj.ObjectMeta, false)...)
}

// ValidateLocalSubjectAccessReview is kube's ValidateLocalSubjectAccessReview: as
// ValidateSubjectAccessReview, metadata.namespace allowed, spec.resourceAttributes.namespace
// equal to it, and no spec.nonResourceAttributes.
func ValidateLocalSubjectAccessReview(obj *LocalSubjectAccessReview) field.ErrorList {
	errs := validateSpec(obj.Spec.ResourceAttributes, obj.Spec.NonResourceAttributes)
	if obj.Spec.User == "" && len(obj.Spec.Groups) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "user"), obj.Spec.User, `at least one of user or group must be specified`))
	}
	errs = append(errs, metadataEmpty(obj.ObjectMeta, true)...)
	if ra := obj.Spec.ResourceAttributes; ra != nil && ra.Namespace != obj.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), ra.Namespace, `must match metadata.namespace`))
	}
	if obj.Spec.NonResourceAttributes != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"), obj.Spec.NonResourceAttributes, `disallowed on this kind of request`))
	}
	return errs
}

// validateSpec requires exactly one of the resource and non-resource attributes.
func validateSpec(ra *ResourceAttributes, nra *NonResourceAttributes) field.ErrorList {
	spec := field.NewPath("spec")
	switch {
	case ra != nil && nra != nil:
		return field.ErrorList{field.Invalid(spec.Child("nonResourceAttributes"), nra, `cannot be specified in combination with resourceAttributes`)}
	case ra == nil && nra == nil:
		return field.ErrorList{field.Invalid(spec.Child("resourceAttributes"), nra, `exactly one of nonResourceAttributes or resourceAttributes must be specified`)}
	}
	return nil
}

// metadataEmpty requires m to be empty but for managedFields (and namespace when allowed).
func metadataEmpty(m metav1.ObjectMeta, namespaceAllowed bool) field.ErrorList {
	shallow := m
	shallow.ManagedFields = nil
	msg := `must be empty`
	if namespaceAllowed {
		shallow.Namespace, msg = "", `must be empty except for namespace`
	}
	if !equality.Semantic.DeepEqual(metav1.ObjectMeta{}, shallow) {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), m, msg)}
	}
	return nil
}
