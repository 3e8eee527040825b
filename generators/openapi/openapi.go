package openapi

import (
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Import paths generated OpenAPI code refers to.
const (
	commonPkg = "k8s.io/kube-openapi/pkg/common"
	specPkg   = "k8s.io/kube-openapi/pkg/validation/spec"
	ptrPkg    = "k8s.io/utils/ptr"
	metav1Pkg = "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fileName is the name of the file written in every group's install package.
const fileName = "zz_generated.openapi.go"

// metaTypes are the metav1 types every group's server speaks besides its own kinds.
var metaTypes = []string{"DeleteOptions", "Patch", "Status", "WatchEvent"}

// New returns the openapi generator. Generate returns one file per group, in the group's
// install package. Errors: a model.Diagnostics for a field that has no OpenAPI
// representation (a map with non-string keys, a basic type OpenAPI has no type for such as
// complex128) or whose +default is not JSON.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "openapi".
func (generator) Name() string { return "openapi" }

// Generate emits zz_generated.openapi.go in every group's install package.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	for _, g := range api.Groups {
		out, ds, err := generateGroup(api, g)
		fs.Fail(err)
		fs.Report(ds...)
		if out != nil {
			fs.Put(filepath.Join(g.InstallDir, fileName), out)
		}
	}
	return fs.Result()
}

// generateGroup renders the OpenAPI definitions file of group g.
func generateGroup(api *model.API, g *model.Group) ([]byte, model.Diagnostics, error) {
	var defs []*model.Type // the group's own; the shared ones come from sharedPkg
	for _, t := range collect(api, g) {
		if !isShared(t) {
			defs = append(defs, t)
		}
	}
	names := functionNames(g, defs)
	b := &builder{}
	f := emit.NewFile(g.InstallPath, "install", nil)
	entries := make([]jen.Code, 0, len(defs))
	for _, t := range defs {
		entries = append(entries, definitionName(t).Op(":").Id(names[t]).Call(jen.Id("ref")))
	}
	groupName := g.Name + " group"
	if g.Name == "" {
		groupName = "core group" // the legacy group at /api
	}
	f.Commentf("GetOpenAPIDefinitions returns the OpenAPI schemas of every type the %s serves, keyed by Go type name:", groupName)
	f.Comment("the shared ones of k8s.io/apimachinery's types and the group's own.")
	f.Func().Id("GetOpenAPIDefinitions").Params(jen.Id("ref").Qual(commonPkg, "ReferenceCallback")).
		Map(jen.String()).Qual(commonPkg, "OpenAPIDefinition").Block(
		jen.Id("defs").Op(":=").Qual(sharedPkg, "GetOpenAPIDefinitions").Call(jen.Id("ref")),
		jen.Qual("maps", "Copy").Call(jen.Id("defs"), jen.Map(jen.String()).Qual(commonPkg, "OpenAPIDefinition").Custom(multi, entries...)),
		jen.Return(jen.Id("defs")),
	)
	for _, t := range defs {
		f.Line()
		f.Add(b.definition(names[t], t))
	}
	if len(b.diags) > 0 {
		return nil, b.diags, nil
	}
	out, err := emit.Render(f, "")
	if err != nil {
		return nil, nil, err
	}
	return out, nil, nil
}

// multi renders a composite literal one element per line.
var multi = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}

// collect returns every type that gets a definition, sorted by name: the served kinds and
// lists, the metav1 request and response types, and every struct they reach.
func collect(api *model.API, g *model.Group) []*model.Type {
	seen := map[string]*model.Type{}
	var visitType func(t *model.Type)
	var visitRef func(r *model.TypeRef)
	visitType = func(t *model.Type) {
		if t == nil || seen[t.Name.String()] != nil {
			return
		}
		if t.Kind != model.Struct {
			if t.Underlying != nil {
				visitRef(t.Underlying)
			}
			return
		}
		seen[t.Name.String()] = t
		if special(t) != nil {
			return
		}
		for _, f := range t.Fields {
			if f.JSONName != "-" {
				visitRef(f.Type)
			}
		}
	}
	visitRef = func(r *model.TypeRef) {
		for r != nil {
			if r.Kind == model.Named {
				visitType(r.Named)
				return
			}
			r = r.Elem
		}
	}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			visitType(k.Type)
			visitType(k.List)
		}
	}
	for _, name := range metaTypes {
		visitType(api.Types[model.TypeName{Package: metav1Pkg, Name: name}.String()])
	}
	return sortedTypes(seen)
}

// sortedTypes returns the values of types sorted by key.
func sortedTypes(types map[string]*model.Type) []*model.Type {
	keys := make([]string, 0, len(types))
	for k := range types {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*model.Type, len(keys))
	for i, k := range keys {
		out[i] = types[k]
	}
	return out
}

// functionNames names each definition's function schema_<package ident>_<Type>: the group's own
// packages by "<group dir>_<version>" (schema_db_v1_Database), other packages by their whole
// import path (schema_k8sio_apimachinery_pkg_apis_meta_v1_ObjectMeta). When two short names
// collide, every name uses the whole import path.
func functionNames(g *model.Group, defs []*model.Type) map[*model.Type]string {
	own := map[string]bool{}
	if g.Hub != nil {
		own[g.Hub.Path] = true
	}
	for _, v := range g.Versions {
		own[v.Package.Path] = true
	}
	build := func(short bool) (map[*model.Type]string, bool) {
		names := map[*model.Type]string{}
		used := map[string]bool{}
		for _, t := range defs {
			ident := identifier(t.Name.Package)
			if short && own[t.Name.Package] {
				ident = identifier(path.Base(path.Dir(t.Name.Package)) + "/" + path.Base(t.Name.Package))
			}
			name := "schema_" + ident + "_" + t.Name.Name
			if used[name] {
				return nil, false
			}
			used[name] = true
			names[t] = name
		}
		return names, true
	}
	if names, ok := build(true); ok {
		return names
	}
	names, _ := build(false)
	return names
}

// identifier turns an import path into an identifier fragment as openapi-gen's namer does:
// dots dropped, slashes and dashes to underscores ("k8s.io/api" -> "k8sio_api").
func identifier(p string) string {
	return strings.NewReplacer(".", "", "/", "_", "-", "_", "~", "_").Replace(p)
}
