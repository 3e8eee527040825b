package cel

import "k8s.io/apimachinery/pkg/util/validation/field"

// Origin is the origin (field.Error.Origin) of every error Rule.Validate returns, which
// tells them apart from the schema's errors; clients do not see it.
const Origin = "x-kubernetes-validations"

// NotCheckedMessage is the detail of the error kube-apiserver reports, at no field, in place
// of the rules of a custom resource whose schema errors blocked them.
const NotCheckedMessage = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

// Gate returns errs, the errors of an object of a kind whose schema has CEL rules, as
// apiextensions-apiserver's customResourceStrategy reports them: rules are evaluated only
// when no other error is "blocking" (hasBlockingErr: NotSupported, Required, TooLong,
// TooMany or TypeInvalid). When one is, the rules' errors (those of origin Origin) are
// dropped and field.Invalid(nil, nil, NotCheckedMessage) is added. errs is not modified.
func Gate(errs field.ErrorList) field.ErrorList {
	blocked := false
	for _, e := range errs {
		if e.Origin == Origin {
			continue
		}
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			blocked = true
		}
	}
	if !blocked {
		return errs
	}
	out := make(field.ErrorList, 0, len(errs)+1)
	for _, e := range errs {
		if e.Origin != Origin {
			out = append(out, e)
		}
	}
	return append(out, field.Invalid(nil, nil, NotCheckedMessage))
}
