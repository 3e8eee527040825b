package structural

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// allowedAtStatusRoot maps the keys allowed at the root of the schema of a CRD with the status subresource to the
// JSONSchemaProps field names upstream lists in its message.
var allowedAtStatusRoot = []struct{ key, name string }{
	{"description", "Description"}, {"type", "Type"}, {"format", "Format"}, {"title", "Title"},
	{"maximum", "Maximum"}, {"exclusiveMaximum", "ExclusiveMaximum"}, {"minimum", "Minimum"},
	{"exclusiveMinimum", "ExclusiveMinimum"}, {"maxLength", "MaxLength"}, {"minLength", "MinLength"},
	{"pattern", "Pattern"}, {"maxItems", "MaxItems"}, {"minItems", "MinItems"}, {"uniqueItems", "UniqueItems"},
	{"multipleOf", "MultipleOf"}, {"required", "Required"}, {"items", "Items"}, {"properties", "Properties"},
	{"externalDocs", "ExternalDocs"}, {"example", "Example"},
	{"x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields"}, {"x-kubernetes-validations", "XValidations"},
}

// CheckStatusRoot checks the root of schema (the decoded openAPIV3Schema at fldPath) of a CRD version whose status
// subresource is enabled, as kube-apiserver's CRD validation: the type must be object (Invalid at
// <fldPath>.type, `only "object" is allowed as the type at the root of the schema if the status subresource is
// enabled`) and only the fields that keep status validation intact when it is extracted as properties[status] may
// be set (Invalid at fldPath, "only [Description Type ...] fields are allowed at the root of the schema if the
// status subresource is enabled"). It returns at most one error; New does not run it, as it does not know the
// subresources.
func CheckStatusRoot(schema map[string]any, fldPath *field.Path) field.ErrorList {
	if t, ok := schema["type"]; ok && t != "" && t != "object" {
		return field.ErrorList{field.Invalid(fldPath.Child("type"), t,
			`only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
	}
	names := make([]string, len(allowedAtStatusRoot))
	allowed := map[string]bool{}
	for i, a := range allowedAtStatusRoot {
		names[i] = a.name
		allowed[a.key] = true
	}
	for _, k := range sortedKeys(schema) {
		if !allowed[k] && !isZero(schema[k]) {
			return field.ErrorList{field.Invalid(fldPath, field.OmitValueType{},
				fmt.Sprintf("only %v fields are allowed at the root of the schema if the status subresource is enabled", names))}
		}
	}
	return nil
}

// isZero reports whether a decoded JSON value is its Go field's zero value upstream: null, false, "", 0 or empty.
func isZero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case float64:
		return v == 0
	case int64:
		return v == 0
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}
