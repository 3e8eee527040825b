package v1

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxSelectableFields is the most selectableFields a version may have, as upstream's.
const maxSelectableFields = 8

// validateSelectableFields checks a version's selectableFields as upstream's
// ValidateCustomResourceSelectableFields: at most 8, each a simple JSON path to a string,
// boolean or integer field the schema specifies, not under metadata, none twice.
func validateSelectableFields(v *CustomResourceDefinitionVersion, fld *field.Path) field.ErrorList {
	if len(v.SelectableFields) == 0 {
		return nil
	}
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return field.ErrorList{field.Invalid(fld, "", "may only be set when `version.schema.openAPIV3Schema` is not included")}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, f := range v.SelectableFields {
		p := fld.Index(i).Child("jsonPath")
		if f.JSONPath == "" {
			errs = append(errs, field.Required(p, ""))
			continue
		}
		if e := simpleJSONPath(f.JSONPath, p); len(e) > 0 {
			errs = append(errs, e...)
			continue
		}
		parts := strings.Split(strings.TrimPrefix(f.JSONPath, "."), ".")
		if parts[0] == "metadata" {
			errs = append(errs, field.Invalid(p, f.JSONPath, "must not point to fields in metadata"))
			continue
		}
		s := v.Schema.OpenAPIV3Schema
		for _, part := range parts {
			next, ok := s.Properties[part]
			if !ok {
				s = nil
				break
			}
			s = &next
		}
		switch {
		case s == nil:
			errs = append(errs, field.Invalid(p, f.JSONPath, "is an invalid path: does not refer to a valid field"))
		case s.Type != "string" && s.Type != "boolean" && s.Type != "integer":
			errs = append(errs, field.Invalid(p, f.JSONPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		case seen.Has(f.JSONPath):
			errs = append(errs, field.Duplicate(p, f.JSONPath))
		}
		seen.Insert(f.JSONPath)
	}
	if len(v.SelectableFields) > maxSelectableFields {
		errs = append(errs, field.TooMany(fld, len(v.SelectableFields), maxSelectableFields))
	}
	return errs
}
