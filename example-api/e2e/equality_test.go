package e2e

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestGenerationBump updates a Database through client-go and checks metadata.generation,
// which the generated strategy bumps when the spec changed as equality.Semantic.DeepEqual
// sees it (through the generated SemanticEqual_DatabaseSpec): not for a label, a quantity
// written in another unit or a nil map made empty; once for each real spec change.
func TestGenerationBump(t *testing.T) {
	t.Parallel() // a server of its own; no assertion on timing
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbs := s.dynamic.Resource(databasesV1).Namespace("default")
	obj, err := dbs.Create(ctx, newDatabase("db.example.com/v1", "gen", map[string]any{
		"engine": "postgres", "storage": "1Gi", "parameters": map[string]any{"a": "1"},
	}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if g := obj.GetGeneration(); g != 1 {
		t.Fatalf("generation after create = %d, want 1", g)
	}
	for _, step := range []struct {
		what   string
		change func(o *unstructured.Unstructured)
		want   int64
	}{
		{"a label", func(o *unstructured.Unstructured) { o.SetLabels(map[string]string{"x": "y"}) }, 1},
		{"storage 1Gi to 1024Mi", func(o *unstructured.Unstructured) { setSpec(t, o, "1024Mi", "storage") }, 1},
		{"a parameter", func(o *unstructured.Unstructured) { setSpec(t, o, "2", "parameters", "a") }, 2},
		{"storage 1024Mi to 2Gi", func(o *unstructured.Unstructured) { setSpec(t, o, "2Gi", "storage") }, 3},
		{"parameters removed", func(o *unstructured.Unstructured) { unstructured.RemoveNestedField(o.Object, "spec", "parameters") }, 4},
		// The stored spec has no parameters (nil); an empty map is equal to it.
		{"parameters set to {}", func(o *unstructured.Unstructured) { setSpec(t, o, map[string]any{}, "parameters") }, 4},
	} {
		step.change(obj)
		obj, err = dbs.Update(ctx, obj, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update (%s): %v", step.what, err)
		}
		if g := obj.GetGeneration(); g != step.want {
			t.Errorf("generation after changing %s = %d, want %d", step.what, g, step.want)
		}
	}
}

// setSpec sets the field at path below spec to value.
func setSpec(t *testing.T, o *unstructured.Unstructured, value any, path ...string) {
	t.Helper()
	if err := unstructured.SetNestedField(o.Object, value, append([]string{"spec"}, path...)...); err != nil {
		t.Fatal(err)
	}
}
