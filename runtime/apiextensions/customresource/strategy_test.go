package customresource

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/validation/cel"
	crschema "github.com/apigen-dev/apigen/runtime/validation/structural"
)

// TestStrategyGatesRules checks that a custom resource's CEL rules run only when neither its
// schema nor its metadata has a blocking error, as apiextensions' customResourceStrategy (whose
// metadata validation is part of it): a create without a name gets the notice instead of the
// rules' errors, as kube-apiserver answers. The metadata's own errors are the Store's to report.
func TestStrategyGatesRules(t *testing.T) {
	s, errs := crschema.New(map[string]any{"type": "object", "properties": map[string]any{
		"spec": map[string]any{"type": "object", "required": []any{"size"},
			"properties":               map[string]any{"size": map[string]any{"type": "integer"}},
			"x-kubernetes-validations": []any{map[string]any{"rule": "!has(self.size) || self.size < 3", "message": "too big"}}},
	}}, field.NewPath("schema"))
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	st := &strategy{namespaced: true, version: &Version{Name: "v1", Schema: s}}
	const notChecked = "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; " +
		"correct the existing errors to complete validation"
	for _, tc := range []struct {
		name     string
		metadata map[string]any
		spec     map[string]any
		want     string
	}{
		{"rules run", map[string]any{"name": "a"}, map[string]any{"size": int64(5)}, "spec: Invalid value: too big"},
		{"no name", map[string]any{}, map[string]any{"size": int64(5)}, notChecked},
		{"annotations too large", map[string]any{"name": "a", "annotations": map[string]any{"a": strings.Repeat("x", 256*1024)}},
			map[string]any{"size": int64(5)}, notChecked},
		{"an invalid label does not block", map[string]any{"name": "a", "labels": map[string]any{"a": "-x"}},
			map[string]any{"size": int64(5)}, "spec: Invalid value: too big"},
		{"a schema error blocks", map[string]any{"name": "a"}, map[string]any{}, "spec.size: Required value\n" + notChecked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.metadata["namespace"] = "default" // as the Store sets it before validating
			obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
				"metadata": tc.metadata, "spec": tc.spec}}
			// The Store validates the metadata first and notes its errors for the strategy.
			meta := validation.ValidateObjectMetaAccessor(obj, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
			var lines []string
			for _, e := range st.Validate(cel.WithPriorErrors(context.Background(), meta), obj) {
				lines = append(lines, e.Error())
			}
			if got := strings.Join(lines, "\n"); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
