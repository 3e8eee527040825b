// Package validation validates wardle's internal types, as sample-apiserver's.
package validation

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/generators/testdata/load/codegenlayout/apis/wardle"
)

// ValidateFlunder is called on create.
func ValidateFlunder(f *wardle.Flunder) field.ErrorList {
	return ValidateFlunderSpec(f, field.NewPath("reference"))
}

// ValidateFlunderSpec is a helper: no kind is called FlunderSpec.
func ValidateFlunderSpec(f *wardle.Flunder, fldPath *field.Path) field.ErrorList { return nil }

// ValidateFlunderUpdate is called on update with the request's context, as
// apiextensions-apiserver's ValidateCustomResourceDefinitionUpdate.
func ValidateFlunderUpdate(ctx context.Context, newFlunder, oldFlunder *wardle.Flunder) field.ErrorList {
	return nil
}

// Options are validation options, as Kubernetes' PodValidationOptions.
type Options struct{ Strict bool }

// ValidateFischer takes a value: a near miss.
func ValidateFischer(f wardle.Fischer) field.ErrorList { return nil }

// ValidateFischerUpdate takes options: a near miss.
func ValidateFischerUpdate(newFischer, oldFischer *wardle.Fischer, opts Options) field.ErrorList {
	return nil
}

// ValidateFlunderCreate is named as Kubernetes' ValidatePodCreate: a near miss.
func ValidateFlunderCreate(f *wardle.Flunder) field.ErrorList { return nil }
