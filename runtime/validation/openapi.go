package validation

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
)

// openAPIIn is where kube-openapi says a value was found: apiextensions-apiserver validates
// custom resources as a request "body", so its messages read "spec.x in body should ...".
const openAPIIn = "body"

// openAPIError turns err, a kube-openapi schema validation error about the value at
// fldPath, into the field.Error kube-apiserver reports for it on a custom resource:
// apiextensions-apiserver's kubeOpenAPIResultToFieldErrors (pkg/apiserver/validation), case
// by case. Required is field.Required with no detail; enum is field.NotSupported listing
// the allowed values in schema order (strings as they are, other values as JSON); too long
// is field.TooLong; too many items or properties are field.TooMany; an invalid type or
// format is field.TypeInvalid; everything else is field.Invalid, with kube-openapi's message
// ("spec.x in body should match '^a$'") as detail. err.Name must be fldPath.String().
func openAPIError(fldPath *field.Path, err *openapierrors.Validation) *field.Error {
	value := any("")
	if err.Value != nil {
		value = err.Value
	}
	switch err.Code() {
	case openapierrors.RequiredFailCode:
		return field.Required(fldPath, "")
	case openapierrors.EnumFailCode:
		values := []string{}
		for _, allowed := range err.Values {
			if s, ok := allowed.(string); ok {
				values = append(values, s)
			} else {
				j, _ := json.Marshal(allowed)
				values = append(values, string(j))
			}
		}
		return field.NotSupported(fldPath, err.Value, values)
	case openapierrors.TooLongFailCode:
		return field.TooLong(fldPath, "", int(asInt64(err.Valid)))
	case openapierrors.MaxItemsFailCode, openapierrors.TooManyPropertiesCode:
		return field.TooMany(fldPath, int(asInt64(err.Value)), int(asInt64(err.Valid)))
	case openapierrors.InvalidTypeCode:
		return field.TypeInvalid(fldPath, value, err.Error())
	}
	return field.Invalid(fldPath, value, err.Error())
}

// asInt64 is v when it is an int64, else -1, as kubeOpenAPIResultToFieldErrors reads counts.
func asInt64(v any) int64 {
	if i, ok := v.(int64); ok {
		return i
	}
	return -1
}

// openAPIErrors is openAPIError of err, or nil when err is nil, as a list with origin set
// (the marker kind, for declarative validation's tests; origins are not shown to clients).
func openAPIErrors(fldPath *field.Path, err *openapierrors.Validation, origin string) field.ErrorList {
	if err == nil {
		return nil
	}
	return field.ErrorList{openAPIError(fldPath, err).WithOrigin(origin)}
}
