package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateClusterRole is the hand-written validation of a ClusterRole's aggregationRule, as
// kube's rbac validation.ValidateClusterRole; the generated strategy calls it on create and
// update, after the checks generated from the markers. Errors, each a field error of the 422
// Invalid status: an aggregationRule without clusterRoleSelectors ("at least one
// clusterRoleSelector required if aggregationRule is non-nil"); a selector that is not a
// valid label selector.
func ValidateClusterRole(obj *ClusterRole) field.ErrorList {
	if obj.AggregationRule == nil {
		return nil
	}
	var errs field.ErrorList
	path := field.NewPath("aggregationRule", "clusterRoleSelectors")
	if len(obj.AggregationRule.ClusterRoleSelectors) == 0 {
		errs = append(errs, field.Required(path, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
	}
	for i := range obj.AggregationRule.ClusterRoleSelectors {
		selector := &obj.AggregationRule.ClusterRoleSelectors[i]
		errs = append(errs, metav1validation.ValidateLabelSelector(selector, metav1validation.LabelSelectorValidationOptions{}, path.Index(i))...)
		if _, err := metav1.LabelSelectorAsSelector(selector); err != nil {
			errs = append(errs, field.Invalid(path.Index(i), selector, "invalid label selector."))
		}
	}
	return errs
}
