package structural

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// newValidator builds kube-openapi's validator for the schema m, as apiextensions' NewSchemaValidator: a node with
// x-kubernetes-int-or-string gets the types integer and string. rootName names the validated value in messages
// ("" for a custom resource, whose fields are named from the root: "spec.replicas in body ...").
func newValidator(m map[string]any, rootName string) (*validate.SchemaValidator, error) {
	raw, err := json.Marshal(openAPIForm(m))
	if err != nil {
		return nil, fmt.Errorf("cannot encode the schema: %w", err)
	}
	var s spec.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("cannot decode the schema: %w", err)
	}
	return validate.NewSchemaValidator(&s, nil, rootName, strfmt.Default), nil
}

// openAPIForm returns a copy of the schema node m in which every node with x-kubernetes-int-or-string has
// type [integer, string].
func openAPIForm(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch k {
		case "properties":
			if props, ok := v.(map[string]any); ok {
				copied := make(map[string]any, len(props))
				for name, sub := range props {
					copied[name] = openAPIValue(sub)
				}
				v = copied
			}
		case "items", "additionalProperties", "not":
			v = openAPIValue(v)
		case "allOf", "anyOf", "oneOf":
			if list, ok := v.([]any); ok {
				copied := make([]any, len(list))
				for i, sub := range list {
					copied[i] = openAPIValue(sub)
				}
				v = copied
			}
		}
		out[k] = v
	}
	if m["x-kubernetes-int-or-string"] == true {
		out["type"] = []any{"integer", "string"}
	}
	return out
}

func openAPIValue(v any) any {
	if m, ok := v.(map[string]any); ok {
		return openAPIForm(m)
	}
	return v
}

// validateOpenAPI runs the value validations of the whole schema on obj.
func (s *Structural) validateOpenAPI(obj map[string]any) field.ErrorList {
	if s.validator == nil {
		return nil
	}
	errs := openAPIErrors(nil, s.validator.Validate(obj))
	// kube-openapi walks properties in map order; sort by field for stable responses, the errors without a field
	// (allOf, anyOf, oneOf, not, numeric formats) last.
	key := func(e *field.Error) string {
		if e.Field == "<nil>" {
			return "\xff"
		}
		return e.Field
	}
	sort.SliceStable(errs, func(i, j int) bool { return key(errs[i]) < key(errs[j]) })
	return errs
}

// openAPIErrors converts kube-openapi's result to field errors under fldPath, as apiextensions'
// kubeOpenAPIResultToFieldErrors: required is Required, enum NotSupported, maxLength TooLong, maxItems and
// maxProperties TooMany, a wrong type TypeInvalid, everything else Invalid with kube-openapi's message.
func openAPIErrors(fldPath *field.Path, result *validate.Result) field.ErrorList {
	if result == nil || result.IsValid() {
		return nil
	}
	var errs field.ErrorList
	for _, err := range result.Errors {
		verr, ok := err.(*openapierrors.Validation)
		if !ok {
			errs = append(errs, field.Invalid(fldPath, "", err.Error()))
			continue
		}
		path := fldPath
		if verr.Name != "" && verr.Name != "." {
			path = path.Child(strings.TrimPrefix(verr.Name, "."))
		}
		var value any = ""
		if verr.Value != nil {
			value = verr.Value
		}
		switch verr.Code() {
		case openapierrors.RequiredFailCode:
			errs = append(errs, field.Required(path, ""))
		case openapierrors.EnumFailCode:
			values := make([]string, 0, len(verr.Values))
			for _, v := range verr.Values {
				if s, ok := v.(string); ok {
					values = append(values, s)
				} else {
					j, _ := json.Marshal(v)
					values = append(values, string(j))
				}
			}
			errs = append(errs, field.NotSupported(path, verr.Value, values))
		case openapierrors.TooLongFailCode:
			errs = append(errs, field.TooLong(path, value, intOr(verr.Valid, -1)))
		case openapierrors.MaxItemsFailCode, openapierrors.TooManyPropertiesCode:
			errs = append(errs, field.TooMany(path, intOr(verr.Value, -1), intOr(verr.Valid, -1)))
		case openapierrors.InvalidTypeCode:
			errs = append(errs, field.TypeInvalid(path, value, verr.Error()))
		default:
			errs = append(errs, field.Invalid(path, value, verr.Error()))
		}
	}
	return errs
}

// intOr returns v as an int when it is an integer, else def.
func intOr(v any, def int) int {
	switch n := v.(type) {
	case int64:
		return int(n)
	case int:
		return n
	case float64:
		if n == float64(int64(n)) {
			return int(n)
		}
	}
	return def
}
