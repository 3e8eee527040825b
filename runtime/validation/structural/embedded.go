package structural

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateEmbedded checks the apiVersion, kind and metadata of every x-kubernetes-embedded-resource value in x at
// path (and of x itself when root: the metadata of the resource is the server's to check), as upstream's
// objectmeta.Validate: apiVersion and kind are required strings, apiVersion a group/version, kind a DNS-1035 label
// in any case, metadata an object whose name is a DNS subdomain.
func validateEmbedded(path *field.Path, x any, s *Structural, root bool) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		if s.embeddedResource && !root {
			errs = append(errs, validateEmbeddedResource(path, x)...)
		}
		for _, k := range sortedKeys(x) {
			if sub, ok := s.properties[k]; ok {
				errs = append(errs, validateEmbedded(path.Child(k), x[k], sub, false)...)
			} else if s.additional != nil {
				errs = append(errs, validateEmbedded(path.Key(k), x[k], s.additional, false)...)
			}
		}
	case []any:
		for i, item := range x {
			errs = append(errs, validateEmbedded(path.Index(i), item, s.items, false)...)
		}
	}
	return errs
}

// validateEmbeddedResource checks the type and object meta of one embedded resource.
func validateEmbeddedResource(path *field.Path, x map[string]any) field.ErrorList {
	var errs field.ErrorList
	if _, ok := x["apiVersion"]; !ok {
		errs = append(errs, field.Required(path.Child("apiVersion"), ""))
	}
	if _, ok := x["kind"]; !ok {
		errs = append(errs, field.Required(path.Child("kind"), ""))
	}
	if v, ok := x["apiVersion"]; ok {
		switch apiVersion, isString := v.(string); {
		case !isString:
			errs = append(errs, field.Invalid(path.Child("apiVersion"), v, "must be a string"))
		case apiVersion == "":
			errs = append(errs, field.Required(path.Child("apiVersion"), ""))
		default:
			if _, err := schema.ParseGroupVersion(apiVersion); err != nil {
				errs = append(errs, field.Invalid(path.Child("apiVersion"), apiVersion, err.Error()))
			}
		}
	}
	if v, ok := x["kind"]; ok {
		switch kind, isString := v.(string); {
		case !isString:
			errs = append(errs, field.Invalid(path.Child("kind"), v, "must be a string"))
		case kind == "":
			errs = append(errs, field.Required(path.Child("kind"), ""))
		default:
			if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(kind)); len(msgs) > 0 {
				errs = append(errs, field.Invalid(path.Child("kind"), kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
			}
		}
	}
	if v, ok := x["metadata"]; ok && v != nil {
		meta, isMap := v.(map[string]any)
		if !isMap {
			return append(errs, field.Invalid(path.Child("metadata"), v, "must be an object"))
		}
		if name, ok := meta["name"].(string); ok && name != "" {
			for _, msg := range utilvalidation.IsDNS1123Subdomain(name) {
				errs = append(errs, field.Invalid(path.Child("metadata", "name"), name, msg))
			}
		}
	}
	return errs
}
