package conversion

import (
	"fmt"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// restoreObjectMeta makes converted's metadata a deep copy of original's with converted's
// labels and annotations (validated when they differ from original's), as
// apiextensions-apiserver's restoreObjectMeta: a conversion webhook may change nothing else
// of the metadata. Errors are kube's.
func restoreObjectMeta(original, converted *unstructured.Unstructured) error {
	obj, found := converted.Object["metadata"]
	if !found {
		return fmt.Errorf("missing metadata in converted object")
	}
	responseMeta, ok := obj.(map[string]any)
	if !ok {
		return fmt.Errorf("invalid metadata of type %T in converted object", obj)
	}
	meta := map[string]any{}
	if m, ok := original.Object["metadata"].(map[string]any); ok {
		meta = runtime.DeepCopyJSONValue(m).(map[string]any)
	}
	converted.Object["metadata"] = meta
	for _, fld := range []string{"labels", "annotations"} {
		obj, found := responseMeta[fld]
		if !found || obj == nil {
			delete(meta, fld)
			continue
		}
		responseField, ok := obj.(map[string]any)
		if !ok {
			return fmt.Errorf("invalid metadata.%s of type %T in converted object", fld, obj)
		}
		originalField, ok := meta[fld].(map[string]any)
		if !ok && meta[fld] != nil {
			return fmt.Errorf("invalid metadata.%s of type %T in original object", fld, meta[fld])
		}
		changed := len(originalField) != len(responseField)
		for k, v := range responseField {
			if _, ok := v.(string); !ok {
				return fmt.Errorf("metadata.%s[%s] must be a string, but is %T in converted object", fld, k, v)
			}
			if originalField[k] != v {
				changed = true
			}
		}
		if changed {
			m := make(map[string]string, len(responseField))
			for k, v := range responseField {
				m[k] = v.(string)
			}
			var errs field.ErrorList
			if fld == "labels" {
				errs = metav1validation.ValidateLabels(m, field.NewPath("metadata", "labels"))
			} else {
				errs = apivalidation.ValidateAnnotations(m, field.NewPath("metadata", "annotation"))
			}
			if len(errs) > 0 {
				return errs.ToAggregate()
			}
		}
		meta[fld] = responseField
	}
	return nil
}
