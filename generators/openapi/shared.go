package openapi

import (
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// sharedPkg holds, once, the definitions of the k8s.io/apimachinery types every group
// references (ObjectMeta, Status, Condition, ...): a group's GetOpenAPIDefinitions starts
// from its GetOpenAPIDefinitions and adds only the group's own types (and apimachinery types
// outside sharedTypes). sharedTypes, in zz_generated.shared.go, lists what it holds; both are
// written by TestSharedDefinitions (`go test ./generators/openapi -run TestSharedDefinitions
// -update`), which fails when either is stale.
const sharedPkg = "github.com/apigen-dev/apigen/runtime/openapi/apimachinery"

// isShared reports whether t's definition is in sharedPkg rather than in a group's file.
func isShared(t *model.Type) bool { return sharedTypes[t.Name.String()] }

// generateShared renders sharedPkg's zz_generated.openapi.go from api (testdata/input/shared
// loaded with the real loader): the definitions of every type its group reaches outside the
// group's own packages. It also returns their Go type names, sorted, for sharedTypes.
func generateShared(api *model.API) ([]byte, []string, error) {
	g := api.Groups[0]
	own := map[string]bool{}
	for _, v := range g.Versions {
		own[v.Package.Path] = true
	}
	var defs []*model.Type
	var names []string
	for _, t := range collect(api, g) {
		if !own[t.Name.Package] {
			defs = append(defs, t)
			names = append(names, t.Name.String())
		}
	}
	sort.Strings(names)
	b := &builder{}
	f := emit.NewFile(sharedPkg, "apimachinery", nil)
	entries := make([]jen.Code, 0, len(defs))
	fn := func(t *model.Type) string { return "schema_" + identifier(t.Name.Package) + "_" + t.Name.Name }
	for _, t := range defs {
		entries = append(entries, definitionName(t).Op(":").Id(fn(t)).Call(jen.Id("ref")))
	}
	f.Comment("GetOpenAPIDefinitions returns the OpenAPI schemas of the k8s.io/apimachinery types every generated group")
	f.Comment("references, keyed by their OpenAPI model names; a group's GetOpenAPIDefinitions adds its own types to them.")
	f.Func().Id("GetOpenAPIDefinitions").Params(jen.Id("ref").Qual(commonPkg, "ReferenceCallback")).
		Map(jen.String()).Qual(commonPkg, "OpenAPIDefinition").Block(
		jen.Return(jen.Map(jen.String()).Qual(commonPkg, "OpenAPIDefinition").Custom(multi, entries...)),
	)
	for _, t := range defs {
		f.Line()
		f.Add(b.definition(fn(t), t))
	}
	if len(b.diags) > 0 {
		return nil, nil, b.diags
	}
	out, err := emit.Render(f, "")
	if err != nil {
		return nil, nil, err
	}
	return out, names, nil
}

// sharedNamesFile renders zz_generated.shared.go: sharedTypes listing names.
func sharedNamesFile(names []string) ([]byte, error) {
	f := emit.NewFile("github.com/apigen-dev/apigen/generators/openapi", "openapi", nil)
	entries := make([]jen.Code, len(names))
	for i, n := range names {
		entries[i] = jen.Lit(n).Op(":").True()
	}
	f.Comment("sharedTypes are the Go type names whose definitions sharedPkg holds.")
	f.Var().Id("sharedTypes").Op("=").Map(jen.String()).Bool().Custom(multi, entries...)
	return emit.Render(f, "")
}
