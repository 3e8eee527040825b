package endpoints

import (
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fieldValidation returns the effective fieldValidation directive: Warn when absent (as
// kube-apiserver's handlers), else Strict, Warn or Ignore.
func fieldValidation(directive string) string {
	if directive == "" {
		return metav1.FieldValidationWarn
	}
	return directive
}

// validateWriteOptions checks dryRun (only "All") and fieldValidation (Strict, Warn, Ignore),
// as kube's ValidateCreateOptions; kind names the options type in the 422 Invalid.
func validateWriteOptions(kind string, dryRun []string, directive string) error {
	var errs field.ErrorList
	for i, v := range dryRun {
		if v != metav1.DryRunAll {
			errs = append(errs, field.NotSupported(field.NewPath("dryRun").Index(i), v, []string{metav1.DryRunAll}))
		}
	}
	switch directive {
	case "", metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("fieldValidation"), directive,
			[]string{metav1.FieldValidationIgnore, metav1.FieldValidationWarn, metav1.FieldValidationStrict}))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
	}
	return nil
}

// addWarnings adds one `Warning: 299 - "<text>"` header per warning, as kube's
// warning.AddWarning; call it before the header is written.
func addWarnings(w http.ResponseWriter, warnings []string) {
	for _, text := range warnings {
		w.Header().Add("Warning", "299 - "+strconv.Quote(text))
	}
}
