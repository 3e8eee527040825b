package cel

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	celopenapi "k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// TestJSONWithSchema binds subjects with their schema, as a custom resource's values are bound (JSON.Schema): a
// property that is a CEL keyword is reached escaped, a failed rule on an object or array reports no value and on a
// scalar its value, and an evaluation error reports the schema's type, "" for x-kubernetes-int-or-string.
func TestJSONWithSchema(t *testing.T) {
	ref := &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{
		"name": *spec.StringProperty(), "namespace": *spec.StringProperty()}}}
	intOrString := &spec.Schema{VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-int-or-string": true}}}
	list := spec.ArrayProperty(spec.StringProperty())
	for _, tc := range []struct {
		name   string
		rule   string
		self   Type
		schema *spec.Schema
		value  any
		want   string // "Type field: detail", or "" when the rule holds
		bad    any    // the error's value
	}{
		{"escaped keyword", "has(self.__namespace__) && self.__namespace__ == 'b'", Object, ref,
			map[string]any{"name": "a", "namespace": "b"}, "", nil},
		{"plain key does not exist", "!has(self.__namespace__)", Object, ref,
			map[string]any{"name": "a"}, "", nil},
		{"failed on an object", "self.name == 'x'", Object, ref, map[string]any{"name": "a"},
			"FieldValueInvalid spec.engine: failed rule: self.name == 'x'", field.OmitValueType{}},
		{"failed on an array", "self.size() > 3", List, list, []any{"a"},
			"FieldValueInvalid spec.engine: failed rule: self.size() > 3", field.OmitValueType{}},
		{"failed on a scalar", "self == 1", Dyn, intOrString, int64(2),
			"FieldValueInvalid spec.engine: failed rule: self == 1", int64(2)},
		{"evaluation error on an object", "self.missing == 'x'", Object, ref, map[string]any{"name": "a"},
			"FieldValueInvalid spec.engine: no such key: missing evaluating rule: self.missing == 'x'", "object"},
		{"evaluation error on int-or-string", "self > 1", Dyn, intOrString, "a",
			"FieldValueInvalid spec.engine: 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self > 1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCompile(t, Spec{Rule: tc.rule}, tc.self)
			errs := r.Validate(ctx, create, path, JSON{Value: tc.value, Schema: &celopenapi.Schema{Schema: tc.schema}}, nil)
			if got := render(errs); got != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if len(errs) == 1 && tc.bad != nil && errs[0].BadValue != tc.bad {
				t.Errorf("value %#v, want %#v", errs[0].BadValue, tc.bad)
			}
		})
	}
}
