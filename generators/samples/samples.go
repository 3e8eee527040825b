package samples

import (
	"fmt"
	"path/filepath"
	"strings"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/generators/crd"
	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// New returns the samples generator (see the package doc).
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "samples".
func (generator) Name() string { return "samples" }

// Generate writes a sample of every served version of every CustomResourceDefinition of api.
// It reports no error; a value it cannot make is a warning at the kind.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	defs, _ := crd.Definitions(api) // the crd generator reports the diagnostics
	for _, d := range defs {
		for i, v := range d.CRD.Spec.Versions {
			if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			k := d.Kinds[i]
			obj, problems := Object(d.CRD.Spec.Group+"/"+v.Name, k.Name, v.Schema.OpenAPIV3Schema)
			for _, p := range problems {
				fs.Report(model.Diagnostic{Pos: k.Pos, Warning: true, Message: fmt.Sprintf(
					"the generated sample of %s %s has no valid value for %s; give the field a +default, or write the sample yourself in %s",
					k.Name, v.Name, p, filepath.Join(filepath.Dir(d.Group.SamplesDir), file(d.Group, v.Name, k.Name)))})
			}
			out, err := yaml.Marshal(obj)
			if err != nil {
				fs.Fail(fmt.Errorf("sample of %s %s: %w", k.Name, v.Name, err))
				continue
			}
			fs.Put(filepath.Join(d.Group.SamplesDir, file(d.Group, v.Name, k.Name)),
				append([]byte(emit.YAMLHeader+"\n---\n"), out...))
		}
	}
	return fs.Result()
}

// file is the file name of a sample of kind in version of group g:
// <group>_<version>_<kind in lower case>.yaml.
func file(g *model.Group, version, kind string) string {
	return g.Name + "_" + version + "_" + strings.ToLower(kind) + ".yaml"
}

// Object returns the smallest object of kind in apiVersion that schema accepts (see the
// package doc) as JSON values, and the paths of required values it could not make.
func Object(apiVersion, kind string, schema *apiext.JSONSchemaProps) (map[string]any, []string) {
	s := &sampler{}
	obj := map[string]any{}
	for _, name := range schema.Required {
		if p, ok := schema.Properties[name]; ok {
			if v, ok := s.value(&p, name); ok {
				obj[name] = v
			}
		}
	}
	if spec, ok := schema.Properties["spec"]; ok {
		if v, ok := s.value(&spec, "spec"); ok {
			obj["spec"] = v
		}
	}
	obj["apiVersion"], obj["kind"] = apiVersion, kind
	obj["metadata"] = map[string]any{"name": strings.ToLower(kind) + "-sample"}
	return obj, s.problems
}
