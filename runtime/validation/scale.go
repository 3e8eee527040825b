package validation

import (
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ScaleReplicas verifies the replicas that a kind's +kubebuilder:subresource:scale specpath
// (path, e.g. ".spec.replicas") points at, as apiextensions-apiserver's
// customResourceValidator.ValidateScaleSpec does on every create and update of a custom
// resource with a scale subresource. A nil value passes (the CRD reads an absent one as 0).
// The error is field.Invalid at the path as written, leading dot included (".spec.replicas":
// upstream builds its field.Path from the JSON path), reading "should be a non-negative
// integer" or "should be less than or equal to 2147483647".
func ScaleReplicas[T Number](path string, value *T) field.ErrorList {
	if value == nil {
		return nil
	}
	v := int64(*value)
	switch {
	case v < 0:
		return field.ErrorList{field.Invalid(field.NewPath(path), v, "should be a non-negative integer")}
	case v > math.MaxInt32:
		return field.ErrorList{field.Invalid(field.NewPath(path), v, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}
