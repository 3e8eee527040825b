package customresource

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// objectMetaFields are the JSON names of metav1.ObjectMeta's fields.
var objectMetaFields = func() map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeOf(metav1.ObjectMeta{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
}()

// coerceMetadata replaces obj's metadata by its metav1.ObjectMeta form, as
// apiextensions-apiserver's objectmeta.Coerce: fields ObjectMeta does not have are dropped
// and returned as paths ("metadata.foo", sorted). Metadata that does not decode as
// ObjectMeta (labels that are not strings, a name that is a number) is an error.
func coerceMetadata(obj map[string]any) ([]string, error) {
	raw, found := obj["metadata"]
	if !found {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("metadata: expected an object, got %T", raw)
	}
	var unknown []string
	for k := range m {
		if !objectMetaFields[k] {
			unknown = append(unknown, "metadata."+k)
		}
	}
	sort.Strings(unknown)
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	meta := &metav1.ObjectMeta{}
	if err := json.Unmarshal(data, meta); err != nil {
		return nil, fmt.Errorf("cannot decode metadata: %w", err)
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(meta)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	obj["metadata"] = out
	return unknown, nil
}
