package crdopenapi

import (
	"fmt"
	"sync"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/runtime/openapi"
	"github.com/apigen-dev/apigen/runtime/openapi/apimachinery"
	"github.com/apigen-dev/apigen/runtime/registry"
)

// Namer returns the namer of the definitions of custom resource groups: model names are
// kept, and autoscaling/v1 Scale (the scale subresource) carries its group-version-kind. It
// is built at the first call (a server that serves no custom resource never builds it) and
// shared; safe for concurrent use.
func Namer() *openapi.DefinitionNamer { return namer() }

// namer builds Namer's namer once.
var namer = sync.OnceValue(func() *openapi.DefinitionNamer {
	s := runtime.NewScheme()
	if err := autoscalingv1.AddToScheme(s); err != nil {
		panic(err) // registering a fixed set of types cannot fail
	}
	return openapi.NewDefinitionNamer(s)
})

// Definitions returns the definitions of the kinds and list kinds of versions in form f,
// keyed by openapi.KindModelName, with those of the apimachinery types and of autoscaling/v1 Scale they
// refer to: the OpenAPI definitions of a custom resource group, as apiextensions-apiserver's
// builder adds its CRDs' to Kubernetes' own. Errors: a schema that is not a JSON schema.
func Definitions(versions []Version, f Form) (common.GetOpenAPIDefinitions, error) {
	for _, v := range versions {
		if _, err := kindSchema(v, f, func(string) spec.Ref { return spec.Ref{} }); err != nil {
			return nil, err
		}
	}
	return func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
		defs := openapi.MergeDefinitions(apimachinery.GetOpenAPIDefinitions, registry.ScaleOpenAPIDefinitions)(ref)
		for _, v := range versions {
			kind := openapi.KindModelName(v.Group, v.Version, v.Kind)
			s, _ := kindSchema(v, f, ref) // checked above
			defs[kind] = common.OpenAPIDefinition{Schema: s, Dependencies: []string{objectMetaModel}}
			defs[openapi.KindModelName(v.Group, v.Version, v.ListKind)] = common.OpenAPIDefinition{Schema: listSchema(v, ref),
				Dependencies: []string{listMetaModel, kind}}
		}
		return defs
	}, nil
}

// TypeConverter returns the TypeConverter of the kinds of versions (and of autoscaling/v1
// Scale) for field management and server-side apply, built from their definitions without
// value validations, as apiextensions-apiserver builds it from
// BuildOpenAPIV3(..., StripValueValidation, StripNullable). Errors: a schema that is not a
// JSON schema, or one structured-merge-diff cannot read.
func TypeConverter(versions []Version) (managedfields.TypeConverter, error) {
	defs, err := Definitions(versions, Models)
	if err != nil {
		return nil, err
	}
	roots := []string{autoscalingv1.Scale{}.OpenAPIModelName()}
	for _, v := range versions {
		roots = append(roots, openapi.KindModelName(v.Group, v.Version, v.Kind))
	}
	models, err := builder3.BuildOpenAPIDefinitionsForResources(&common.OpenAPIV3Config{
		Info:              &spec.Info{InfoProps: spec.InfoProps{Title: "models", Version: "unversioned"}},
		GetDefinitions:    defs,
		GetDefinitionName: Namer().GetDefinitionName,
	}, roots...)
	if err != nil {
		return nil, fmt.Errorf("cannot build the OpenAPI models of custom resources: %w", err)
	}
	tc, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		return nil, fmt.Errorf("cannot build the type converter of custom resources: %w", err)
	}
	return tc, nil
}
