package cel

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Origin is the origin (field.Error.Origin) of every error Rule.Validate returns, which
// tells them apart from the schema's errors; clients do not see it.
const Origin = "x-kubernetes-validations"

// NotCheckedMessage is the detail of the error kube-apiserver reports, at no field, in place
// of the rules of a custom resource whose schema errors blocked them.
const NotCheckedMessage = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

// priorBlockingKey is the context key of WithPriorErrors.
type priorBlockingKey struct{}

// WithPriorErrors returns ctx noting whether errs, the errors found before the kind's own
// validation runs (the Store's object metadata checks: a missing name, a too long label),
// hold a blocking one, which Gate then counts as well: apiextensions-apiserver's
// customResourceStrategy validates the metadata first, in the same error list.
func WithPriorErrors(ctx context.Context, errs field.ErrorList) context.Context {
	if !Blocking(errs) {
		return ctx
	}
	return context.WithValue(ctx, priorBlockingKey{}, true)
}

// Gate returns errs, the errors of an object of a kind whose schema has CEL rules, as
// apiextensions-apiserver's customResourceStrategy reports them: rules are evaluated only
// when no other error, of errs or noted in ctx by WithPriorErrors, is "blocking"
// (hasBlockingErr: NotSupported, Required, TooLong, TooMany or TypeInvalid). When one is,
// the rules' errors (those of origin Origin) are dropped and field.Invalid(nil, nil,
// NotCheckedMessage) is added. errs is not modified.
func Gate(ctx context.Context, errs field.ErrorList) field.ErrorList {
	if !PriorBlocking(ctx) && !Blocking(errs) {
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

// PriorBlocking reports whether ctx notes a blocking error found before the kind's own
// validation (WithPriorErrors).
func PriorBlocking(ctx context.Context) bool {
	prior, _ := ctx.Value(priorBlockingKey{}).(bool)
	return prior
}

// Blocking reports whether errs hold an error, other than a rule's, of a type that keeps
// kube-apiserver from evaluating a custom resource's rules (apiextensions' hasBlockingErr).
func Blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		if e.Origin == Origin {
			continue
		}
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}
