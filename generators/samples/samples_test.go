package samples

import (
	"context"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/apigen-dev/apigen/generators/crd"
	"github.com/apigen-dev/apigen/generators/load"
)

// moduleRoot is the repository root, two directories above this file's.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// TestSamplesPassKubeValidation generates the sample of every served version of every kind
// of the trees whose markers are the widest (generators/crd's marker fixture, every corpus
// tree, example-api) and checks each with kube-apiserver's own CRD validation of the same
// CRD version (apiextensions-apiserver's schema validator and CEL rules): each sample must be
// accepted, as a create of it by a CRD would be.
func TestSamplesPassKubeValidation(t *testing.T) {
	if testing.Short() {
		t.Skip("loads several API trees")
	}
	root := moduleRoot()
	samples := 0
	for _, pattern := range []string{"./generators/crd/testdata/markers/...", "./generators/testdata/corpus/...", "./example-api/apis/..."} {
		api, err := load.Load(root, pattern)
		if api == nil {
			t.Fatalf("load %s: %v", pattern, err)
		}
		defs, _ := crd.Definitions(api)
		for _, d := range defs {
			for i, v := range d.CRD.Spec.Versions {
				if !v.Served {
					continue
				}
				obj, problems := Object(d.CRD.Spec.Group+"/"+v.Name, d.Kinds[i].Name, v.Schema.OpenAPIV3Schema)
				if len(problems) > 0 {
					t.Errorf("%s %s: no value for %v", d.CRD.Name, v.Name, problems)
				}
				for _, e := range kubeValidate(t, v.Schema.OpenAPIV3Schema, obj) {
					t.Errorf("%s %s: kube rejects the sample %v: %v", d.CRD.Name, v.Name, obj, e)
				}
				samples++
			}
		}
	}
	if samples < 20 {
		t.Fatalf("checked %d samples, want the trees' 20 or more", samples)
	}
}

// kubeValidate validates obj against schema as apiextensions-apiserver validates a custom
// resource on create: the OpenAPI schema validator, then the CEL rules within the per-call
// cost budget.
func kubeValidate(t *testing.T, schema *apiext.JSONSchemaProps, obj map[string]any) field.ErrorList {
	t.Helper()
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiext.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(schema, internal, nil); err != nil {
		t.Fatal(err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		t.Fatal(err)
	}
	errs := apiservervalidation.ValidateCustomResource(nil, obj, validator)
	structural, err := structuralschema.NewStructural(internal)
	if err != nil {
		t.Fatal(err)
	}
	if v := cel.NewValidator(structural, true, celconfig.PerCallLimit); v != nil {
		celErrs, _ := v.Validate(context.Background(), nil, structural, obj, nil, math.MaxInt64)
		errs = append(errs, celErrs...)
	}
	return errs
}

// TestObjectConstraints checks the values Object makes for each kind of constraint on a
// required field, against the schema's own rules.
func TestObjectConstraints(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	f64 := func(v float64) *float64 { return &v }
	schema := &apiext.JSONSchemaProps{Type: "object", Properties: map[string]apiext.JSONSchemaProps{
		"spec": {Type: "object", Required: []string{"count", "above", "even", "ratio", "name", "code", "when", "tags", "ports", "labels", "tier"},
			Properties: map[string]apiext.JSONSchemaProps{
				"count":  {Type: "integer", Minimum: f64(3)},
				"above":  {Type: "integer", Minimum: f64(-5), ExclusiveMinimum: true, Maximum: f64(-2)},
				"even":   {Type: "integer", Minimum: f64(7), MultipleOf: f64(4)},
				"ratio":  {Type: "number", Minimum: f64(0.5)},
				"name":   {Type: "string", MinLength: i64(10), MaxLength: i64(12)},
				"code":   {Type: "string", Pattern: `^[A-Z]{3}-[0-9]{2}$`},
				"when":   {Type: "string", Format: "date-time"},
				"tags":   {Type: "array", MinItems: i64(2), XListType: strPtr("set"), Items: &apiext.JSONSchemaPropsOrArray{Schema: &apiext.JSONSchemaProps{Type: "string"}}},
				"ports":  {Type: "array", MinItems: i64(2), XListType: strPtr("map"), XListMapKeys: []string{"port"}, Items: &apiext.JSONSchemaPropsOrArray{Schema: &apiext.JSONSchemaProps{Type: "object", Required: []string{"port"}, Properties: map[string]apiext.JSONSchemaProps{"port": {Type: "integer", Minimum: f64(1)}}}}},
				"labels": {Type: "object", MinProperties: i64(1), AdditionalProperties: &apiext.JSONSchemaPropsOrBool{Allows: true, Schema: &apiext.JSONSchemaProps{Type: "string"}}},
				"a":      {Type: "string"},
				"b":      {Type: "string"},
				"c":      {Type: "string"},
				"tier":   {Type: "string", Enum: []apiext.JSON{{Raw: []byte(`"Gold"`)}, {Raw: []byte(`"Silver"`)}}},
				"note":   {Type: "string"},
			},
			XValidations: apiext.ValidationRules{
				{Rule: "(has(self.a)?1:0)+(has(self.b)?1:0) == 1", Message: "exactly one of the fields in [a b] must be set"},
				{Rule: "(has(self.b)?1:0)+(has(self.c)?1:0) >= 1", Message: "at least one of the fields in [b c] must be set"},
				{Rule: "(has(self.a)?1:0)+(has(self.c)?1:0) <= 1", Message: "at most one of the fields in [a c] may be set"},
			}},
	}}
	obj, problems := Object("x.example.com/v1", "Widget", schema)
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	spec := obj["spec"].(map[string]any)
	want := map[string]any{"count": int64(3), "above": int64(-2), "even": int64(8), "ratio": 0.5, "name": "samplexxxx", "tier": "Gold", "when": "2026-01-01T00:00:00Z"}
	for k, v := range want {
		if spec[k] != v {
			t.Errorf("spec.%s = %#v, want %#v", k, spec[k], v)
		}
	}
	for _, k := range []string{"note", "a", "c"} {
		if _, ok := spec[k]; ok {
			t.Errorf("spec.%s is set; want only b of the one-of fields, and no optional field", k)
		}
	}
	if c, _ := spec["code"].(string); len(c) != 6 || !strings.Contains(c, "-") {
		t.Errorf("spec.code = %q, want a match of the pattern", c)
	}
	for _, e := range kubeValidate(t, schema, obj) {
		t.Errorf("kube rejects %v: %v", spec, e)
	}
	if obj["apiVersion"] != "x.example.com/v1" || obj["kind"] != "Widget" || obj["metadata"].(map[string]any)["name"] != "widget-sample" {
		t.Errorf("object head %v", obj)
	}
}

func strPtr(s string) *string { return &s }
