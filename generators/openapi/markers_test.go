package openapi

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/internal/testinputs"
)

// markersPkg is the testdata package whose markers TestMarkersToSchema turns into schemas.
const markersPkg = "github.com/apigen-dev/apigen/generators/openapi/testdata/input/markers/v1"

// evalMain prints, as indented JSON, the schemas GetOpenAPIDefinitions returns for the types
// of markersPkg, references rendered as "#/definitions/<name>".
const evalMain = `package main

import (
	"encoding/json"
	"os"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"example.com/eval/install"
)

func main() {
	defs := install.GetOpenAPIDefinitions(func(name string) spec.Ref { return spec.MustCreateRef("#/definitions/" + name) })
	out := map[string]spec.Schema{}
	for name, def := range defs {
		if strings.HasPrefix(name, "` + markersPkg + `.") {
			out[strings.TrimPrefix(name, "` + markersPkg + `.")] = def.Schema
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
`

// TestMarkersToSchema loads testdata/input/markers/v1 with the real loader (markers in all
// four grammars), generates its OpenAPI file, then compiles and runs it in a scratch module and
// checks the schemas kube-openapi gets: the generated Go and the resulting JSON are golden
// files (testdata/markers), and the constraints are also asserted one by one.
func TestMarkersToSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs generated code")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	api, err := load.Load(root, "./generators/openapi/testdata/input/markers/v1")
	if ds, ok := err.(model.Diagnostics); err != nil && (!ok || ds.HasErrors()) {
		t.Fatalf("cannot load testdata/input/markers: %v", err)
	}
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("Generate returned %d files, want 1", len(files))
	}
	var generated []byte
	for _, content := range files {
		generated = content
	}
	out := runGenerated(t, root, generated)
	golden.Check(t, filepath.Join("testdata", "markers"), map[string][]byte{
		"/" + fileName: generated, "/schemas.json": out,
	}, golden.ByFileName)

	var schemas map[string]map[string]interface{}
	if err := json.Unmarshal(out, &schemas); err != nil {
		t.Fatal(err)
	}
	spec := schemas["GadgetSpec"]
	props, _ := spec["properties"].(map[string]interface{})
	prop := func(name string) map[string]interface{} {
		p, _ := props[name].(map[string]interface{})
		return p
	}
	rule := func(rule, message string) []interface{} {
		return []interface{}{map[string]interface{}{"rule": rule, "message": message}}
	}
	for _, c := range []struct {
		what string
		got  map[string]interface{}
		want map[string]interface{}
	}{
		{"GadgetSpec", spec, map[string]interface{}{"minProperties": 1.0, "required": []interface{}{"name"},
			"x-kubernetes-validations": rule("self.minReplicas <= self.maxReplicas", "minReplicas must not exceed maxReplicas")}},
		{"minReplicas", prop("minReplicas"), map[string]interface{}{"minimum": 0.0, "maximum": 100.0, "exclusiveMaximum": true,
			"description": "MinReplicas is the least number of replicas."}},
		{"maxReplicas", prop("maxReplicas"), map[string]interface{}{"maximum": 100.0, "multipleOf": 2.0, "default": 10.0}},
		{"ratio", prop("ratio"), map[string]interface{}{"minimum": 0.0, "exclusiveMinimum": true, "maximum": 1.0, "type": "number"}},
		{"name", prop("name"), map[string]interface{}{"minLength": 1.0, "maxLength": 63.0, "pattern": "^[a-z]([-a-z0-9]*[a-z0-9])?$"}},
		{"mode", prop("mode"), map[string]interface{}{"enum": []interface{}{"Fast", "Safe"}, "default": "Safe"}},
		{"id", prop("id"), map[string]interface{}{"format": "uuid"}},
		{"level", prop("level"), map[string]interface{}{"enum": []interface{}{"low", "high"}, "x-kubernetes-validations": []interface{}{
			map[string]interface{}{"rule": "self != 'off'", "message": "use low"},
			map[string]interface{}{"rule": "self == oldSelf", "message": "level is immutable"}}}},
		{"tags", prop("tags"), map[string]interface{}{"x-kubernetes-list-type": "set", "minItems": 1.0, "maxItems": 8.0}},
		{"ports", prop("ports"), map[string]interface{}{"x-kubernetes-list-type": "atomic", "uniqueItems": true}},
		{"labels", prop("labels"), map[string]interface{}{"maxProperties": 16.0}},
		{"slots", prop("slots"), map[string]interface{}{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []interface{}{"name"}}},
		{"port", prop("port"), map[string]interface{}{"$ref": "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}},
		{"size", prop("size"), map[string]interface{}{"default": "1Gi", "$ref": "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity"}},
		{"since", prop("since"), map[string]interface{}{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}},
		{"selector", prop("selector"), map[string]interface{}{"x-kubernetes-map-type": "atomic"}},
		{"window", prop("window"), map[string]interface{}{"x-kubernetes-map-type": "granular"}},
		{"Window", schemas["Window"], map[string]interface{}{"x-kubernetes-map-type": "atomic"}},
	} {
		for k, v := range c.want {
			if !reflect.DeepEqual(c.got[k], v) {
				t.Errorf("%s: %s = %#v, want %#v", c.what, k, c.got[k], v)
			}
		}
	}
}

// runGenerated compiles generated (package install) with evalMain in a scratch module that
// has apigen's dependencies, runs it and returns its output.
func runGenerated(t *testing.T, root string, generated []byte) []byte {
	testinputs.Declare(t, "./runtime/openapi/apimachinery")
	t.Helper()
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		// The generated file imports apigen's runtime/openapi/apimachinery: require this checkout.
		"go.mod": append(regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module example.com/eval")),
			[]byte("\nrequire github.com/apigen-dev/apigen v0.0.0\n\nreplace github.com/apigen-dev/apigen => "+root+"\n")...),
		"go.sum":              gosum,
		"main.go":             []byte(evalMain),
		"install/" + fileName: generated,
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run of the generated definitions: %v\n%s", err, stderr.String())
	}
	return out
}
