package fieldmanager

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/runtime/openapi"
)

// NewTypeConverter returns the TypeConverter of every kind of scheme that defs describes, as
// kube-apiserver builds one from the OpenAPI models of a group's resources
// (BuildOpenAPIDefinitionsForResources, then managedfields.NewTypeConverter): definitions are
// named by openapi.NewDefinitionNamer(scheme), which marks kinds with
// x-kubernetes-group-version-kind, and their x-kubernetes-list-type, -list-map-keys and
// -map-type extensions decide how fields merge. Errors: a definition that refers to a type
// defs does not describe, or models structured-merge-diff cannot read.
func NewTypeConverter(scheme *runtime.Scheme, defs common.GetOpenAPIDefinitions) (managedfields.TypeConverter, error) {
	models, err := Models(scheme, defs)
	if err != nil {
		return nil, err
	}
	tc, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		return nil, fmt.Errorf("cannot build the type converter: %w", err)
	}
	return tc, nil
}

// Models returns the OpenAPI v3 schemas of every kind of scheme that defs describes and of
// every type they reach, keyed by definition name ("com.example.db.v1.Database",
// "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), with references between them as
// "#/components/schemas/<name>". Errors: a definition that refers to a type defs does not
// describe.
func Models(scheme *runtime.Scheme, defs common.GetOpenAPIDefinitions) (map[string]*spec.Schema, error) {
	namer := openapi.NewDefinitionNamer(scheme)
	var roots []string
	for name := range defs(func(string) spec.Ref { return spec.Ref{} }) {
		if _, ext := namer.GetDefinitionName(name); ext != nil {
			roots = append(roots, name)
		}
	}
	sort.Strings(roots)
	models, err := builder3.BuildOpenAPIDefinitionsForResources(&common.OpenAPIV3Config{
		Info:              &spec.Info{InfoProps: spec.InfoProps{Title: "models", Version: "unversioned"}},
		GetDefinitions:    defs,
		GetDefinitionName: namer.GetDefinitionName,
	}, roots...)
	if err != nil {
		return nil, fmt.Errorf("cannot build the OpenAPI models: %w", err)
	}
	return models, nil
}
