package validation

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	openapivalidate "k8s.io/kube-openapi/pkg/validation/validate"
)

// Number is any Go integer or floating-point type, named or not.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// Minimum verifies that *value is at least min, or greater than min when exclusive, as
// kube-apiserver checks a CRD schema's minimum: kube-openapi's MinimumNativeType, so an
// integer is compared with min truncated to an integer. A nil value passes. The error is
// field.Invalid with "<path> in body should be greater than or equal to <min>" (or "should
// be greater than <min>"), kube-openapi's wording.
func Minimum[T Number](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, min float64, exclusive bool) field.ErrorList {
	if value == nil {
		return nil
	}
	return openAPIErrors(fldPath, openapivalidate.MinimumNativeType(fldPath.String(), openAPIIn, *value, min, exclusive), "minimum")
}

// Maximum verifies that *value is at most max, or less than max when exclusive, as
// kube-apiserver checks a CRD schema's maximum (kube-openapi's MaximumNativeType). A nil
// value passes. The error is field.Invalid with "<path> in body should be less than or
// equal to <max>" (or "should be less than <max>").
func Maximum[T Number](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, max float64, exclusive bool) field.ErrorList {
	if value == nil {
		return nil
	}
	return openAPIErrors(fldPath, openapivalidate.MaximumNativeType(fldPath.String(), openAPIIn, *value, max, exclusive), "maximum")
}

// MultipleOf verifies that *value is an integer multiple of factor, which must be positive
// (the generator rejects other markers), as kube-apiserver checks a CRD schema's multipleOf
// (kube-openapi's MultipleOfNativeType: integers against factor truncated to an integer).
// A nil value passes. The error is field.Invalid with "<path> in body should be a multiple
// of <factor>".
func MultipleOf[T Number](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, factor float64) field.ErrorList {
	if value == nil || factor <= 0 {
		return nil
	}
	return openAPIErrors(fldPath, openapivalidate.MultipleOfNativeType(fldPath.String(), openAPIIn, *value, factor), "multipleOf")
}

// Enum verifies that *value is one of allowed, for enums of strings and numbers, as
// kube-apiserver checks a CRD schema's enum. A nil value passes. The error is
// field.NotSupported listing allowed in the given (the marker's) order, strings as they
// are and numbers as JSON: `Unsupported value: "x": supported values: "postgres", "mysql"`.
func Enum[T comparable](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, allowed ...T) field.ErrorList {
	if value == nil {
		return nil
	}
	for _, a := range allowed {
		if *value == a {
			return nil
		}
	}
	values := make([]any, len(allowed))
	for i, a := range allowed {
		values[i] = jsonScalar(a)
	}
	return openAPIErrors(fldPath, openapivalidate.Enum(fldPath.String(), openAPIIn, jsonScalar(*value), values), "enum")
}

// jsonScalar returns a string, integer or floating-point value as the type JSON decoding
// gives it in an unstructured object: string, int64 or float64.
func jsonScalar(v any) any {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	}
	return v
}
