package customresource

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// scaleFields is the registry.ScaleFields of a custom resource version's subresources.scale:
// its JSON paths over the unstructured object, as apiextensions-apiserver's ScaleREST reads
// and writes them.
type scaleFields struct{ spec Scale }

// Scale reads the Scale fields of obj; unset or non-integer replicas read as 0.
func (s scaleFields) Scale(obj runtime.Object) (spec, status int32, selector string, err error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return 0, 0, "", fmt.Errorf("expected an unstructured object, got %T", obj)
	}
	if s.spec.LabelSelectorPath != "" {
		selector, _, _ = unstructured.NestedString(u.Object, splitPath(s.spec.LabelSelectorPath)...)
	}
	return int32(integerAt(u, s.spec.SpecReplicasPath)), int32(integerAt(u, s.spec.StatusReplicasPath)), selector, nil
}

// SetSpecReplicas sets the integer at the spec replicas path of obj, creating the objects
// on the way. Errors: obj is not unstructured, or a value on the path is not an object.
func (s scaleFields) SetSpecReplicas(obj runtime.Object, replicas int32) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("expected an unstructured object, got %T", obj)
	}
	if err := unstructured.SetNestedField(u.Object, int64(replicas), splitPath(s.spec.SpecReplicasPath)...); err != nil {
		return fmt.Errorf("cannot set %s: %w", s.spec.SpecReplicasPath, err)
	}
	return nil
}

// SpecReplicasPath is the subresources.scale specReplicasPath.
func (s scaleFields) SpecReplicasPath() string { return s.spec.SpecReplicasPath }

// integerAt reads the integer at path; unset or not an integer reads as 0.
func integerAt(u *unstructured.Unstructured, path string) int64 {
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, splitPath(path)...)
	if err != nil || !found {
		return 0
	}
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}

// splitPath turns ".spec.replicas" into ["spec", "replicas"].
func splitPath(path string) []string {
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}
