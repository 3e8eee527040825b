package validation

import (
	"context"
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// Pattern verifies that *value matches re, an ECMA-262-compatible regular expression the
// generated code compiles once into a package-level variable. A nil value passes. The error is
// field.Invalid with "should match '<re>'", kube-apiserver's wording for a CRD schema pattern.
func Pattern[T ~string](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, re *regexp.Regexp) field.ErrorList {
	if value == nil || re.MatchString(string(*value)) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, *value, fmt.Sprintf("should match '%s'", re.String())).WithOrigin("pattern")}
}

// Format verifies that *value is a valid string of the OpenAPI format name (see
// FormatError). A nil value passes. The error is field.Invalid with "must be of type <name>",
// kube-openapi's wording.
func Format[T ~string](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ *T, name string) field.ErrorList {
	if value == nil {
		return nil
	}
	if err := FormatError(name, string(*value)); err != nil {
		return field.ErrorList{field.Invalid(fldPath, *value, err.Error()).WithOrigin("format=" + name)}
	}
	return nil
}

// QuantityFormat is the format of a resource.Quantity string ("10Gi", "500m").
const QuantityFormat = "quantity"

// KnownFormat reports whether FormatError checks the format name: quantity or one of
// kube-openapi's strfmt.Default formats (date-time, date, duration, uri, email, hostname,
// ipv4, ipv6, cidr, mac, uuid, uuid3, uuid4, uuid5, byte, password, ...).
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
