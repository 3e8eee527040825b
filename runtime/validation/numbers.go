package validation

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Number is any Go integer or floating-point type, named or not.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// Minimum verifies that *value is at least min, or greater than min when exclusive. A nil
// value passes. The error is field.Invalid with "must be greater than or equal to <min>"
// (Kubernetes' content.MinError) or "must be greater than <min>". Integer fields with an
// integral inclusive bound use apimachinery's validate.Minimum instead.
func Minimum[T Number](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, min float64, exclusive bool) field.ErrorList {
	if value == nil {
		return nil
	}
	v := float64(*value)
	switch {
	case exclusive && v <= min:
		return field.ErrorList{field.Invalid(fldPath, *value, "must be greater than "+formatNumber(min)).WithOrigin("minimum")}
	case !exclusive && v < min:
		return field.ErrorList{field.Invalid(fldPath, *value, "must be greater than or equal to "+formatNumber(min)).WithOrigin("minimum")}
	}
	return nil
}

// Maximum verifies that *value is at most max, or less than max when exclusive. A nil value
// passes. The error is field.Invalid with "must be less than or equal to <max>" (Kubernetes'
// content.MaxError) or "must be less than <max>".
func Maximum[T Number](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, max float64, exclusive bool) field.ErrorList {
	if value == nil {
		return nil
	}
	v := float64(*value)
	switch {
	case exclusive && v >= max:
		return field.ErrorList{field.Invalid(fldPath, *value, "must be less than "+formatNumber(max)).WithOrigin("maximum")}
	case !exclusive && v > max:
		return field.ErrorList{field.Invalid(fldPath, *value, "must be less than or equal to "+formatNumber(max)).WithOrigin("maximum")}
	}
	return nil
}

// MultipleOf verifies that *value is an integer multiple of factor, which must be positive
// (the generator rejects other markers). A nil value passes. The error is field.Invalid with
// "must be a multiple of <factor>", kube-openapi's wording.
func MultipleOf[T Number](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, factor float64) field.ErrorList {
	if value == nil || factor <= 0 {
		return nil
	}
	q := float64(*value) / factor
	if math.Abs(q-math.Round(q)) <= 1e-9*math.Max(1, math.Abs(q)) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, *value, "must be a multiple of "+formatNumber(factor)).WithOrigin("multipleOf")}
}

// EnumValue verifies that *value is one of allowed, for enums of non-string values (string
// enums use apimachinery's validate.Enum). A nil value passes. The error is
// field.NotSupported listing allowed in the given order.
func EnumValue[T comparable](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, allowed ...T) field.ErrorList {
	if value == nil {
		return nil
	}
	for _, a := range allowed {
		if *value == a {
			return nil
		}
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = fmt.Sprint(a)
	}
	return field.ErrorList{field.NotSupported(fldPath, *value, names)}
}

// formatNumber renders a bound the shortest way: 9, 0.5, 1e+21.
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
