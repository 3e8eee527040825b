package validation

import (
	"context"
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	openapivalidate "k8s.io/kube-openapi/pkg/validation/validate"
)

// Pattern verifies that *value matches re, an ECMA-262-compatible regular expression the
// generated code compiles once into a package-level variable. A nil value passes. The error is
// field.Invalid with "<path> in body should match '<re>'", kube-apiserver's wording for a CRD
// schema pattern (kube-openapi's FailedPattern).
func Pattern[T ~string](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, re *regexp.Regexp) field.ErrorList {
	if value == nil || re.MatchString(string(*value)) {
		return nil
	}
	return openAPIErrors(fldPath, openapierrors.FailedPattern(fldPath.String(), openAPIIn, re.String(), string(*value)), "pattern")
}

// MinLength verifies that *value has at least min characters (Unicode code points), as
// kube-apiserver checks a CRD schema's minLength. A nil value passes. The error is
// field.Invalid with "<path> in body should be at least <min> chars long".
func MinLength[T ~string](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, min int64) field.ErrorList {
	if value == nil {
		return nil
	}
	return openAPIErrors(fldPath, openapivalidate.MinLength(fldPath.String(), openAPIIn, string(*value), min), "minLength")
}

// MaxLength verifies that *value has at most max characters (Unicode code points), as
// kube-apiserver checks a CRD schema's maxLength. A nil value passes. The error is
// field.TooLong, "Too long: may not be more than <max> bytes" (the CRD validation's words,
// although it counts characters).
func MaxLength[T ~string](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, max int64) field.ErrorList {
	if value == nil {
		return nil
	}
	return openAPIErrors(fldPath, openapivalidate.MaxLength(fldPath.String(), openAPIIn, string(*value), max), "maxLength")
}

// Format verifies that *value is a valid string of the OpenAPI format name (see
// FormatError). A nil value passes. The error is field.TypeInvalid with "<path> in body must
// be of type <name>: \"<value>\"", kube-apiserver's wording for a CRD schema format.
func Format[T ~string](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, name string) field.ErrorList {
	if value == nil || FormatError(name, string(*value)) == nil {
		return nil
	}
	return openAPIErrors(fldPath, openapierrors.InvalidType(fldPath.String(), openAPIIn, name, string(*value)), "format="+name)
}

// QuantityFormat is the format of a resource.Quantity string ("10Gi", "500m").
const QuantityFormat = "quantity"

// KnownFormat reports whether FormatError checks the format name: quantity or one of
// kube-openapi's strfmt.Default formats (date-time, date, duration, uri, email, hostname,
// ipv4, ipv6, cidr, mac, uuid, uuid3, uuid4, uuid5, byte, password, k8s-short-name,
// k8s-long-name, ...).
func KnownFormat(name string) bool {
	return name == QuantityFormat || strfmt.Default.ContainsName(name)
}

// FormatError returns nil when s is a valid string of the format name, else an error
// reading "must be of type <name>". An unknown format accepts every string, as OpenAPI
// validation does.
func FormatError(name, s string) error {
	valid := true
	switch {
	case name == QuantityFormat:
		_, err := resource.ParseQuantity(s)
		valid = err == nil
	case strfmt.Default.ContainsName(name):
		valid = strfmt.Default.Validates(name, s)
	}
	if !valid {
		return fmt.Errorf("must be of type %s", name)
	}
	return nil
}

// FirstFailure returns the first non-empty list of results, nil when every check passed:
// the string checks of one schema as kube-openapi's string validator makes them (maxLength,
// then minLength, then pattern), where the first failure ends the checks, so that "" under
// minLength 1 and a pattern reports the length alone, as kube-apiserver does for a CRD.
func FirstFailure(results ...field.ErrorList) field.ErrorList {
	for _, errs := range results {
		if len(errs) > 0 {
			return errs
		}
	}
	return nil
}
