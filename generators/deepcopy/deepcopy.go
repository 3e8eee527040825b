package deepcopy

import (
	"path/filepath"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Name is the generator's name and the <name> of the zz_generated.<name>.go files it writes.
const Name = "deepcopy"

// FileName is the base name of the file written in every API package.
const FileName = "zz_generated." + Name + ".go"

const runtimePkg = "k8s.io/apimachinery/pkg/runtime"

// New returns the deepcopy generator.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name implements emit.Generator.
func (generator) Name() string { return Name }

// Generate implements emit.Generator: it returns one zz_generated.deepcopy.go per API package
// that declares a struct, named slice or named map, keyed by absolute path, except in a
// package whose zz_generated.deepcopy.go controller-gen wrote (model.Package.DeepCopyBy),
// which keeps it. Errors: a
// model.Diagnostics naming every field that cannot be deep-copied, or a rendering failure.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	roots := rootTypes(api)
	names := emit.PackageNames(api)
	var fs emit.Files
	for _, pkg := range api.Packages {
		if pkg.DeepCopyBy != "" {
			continue // controller-gen's file, rewritten by the project's own make generate
		}
		f := emit.NewFile(pkg.Path, pkg.Name, names)
		g := &pkgGen{pkg: pkg, roots: roots[pkg.Path]}
		if !g.emitTypes(f) {
			continue
		}
		if len(g.diags) > 0 {
			fs.Report(g.diags...)
			continue
		}
		fs.Add(filepath.Join(pkg.Dir, FileName), f, "")
	}
	return fs.Result()
}

// rootTypes returns, by package import path, the names of the types that get DeepCopyObject:
// each version's kinds and lists, the hub's types named like one of them, and every local
// type marked as a root.
func rootTypes(api *model.API) map[string]map[string]bool {
	roots := map[string]map[string]bool{}
	add := func(pkgPath, name string) {
		if roots[pkgPath] == nil {
			roots[pkgPath] = map[string]bool{}
		}
		roots[pkgPath][name] = true
	}
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			for _, k := range v.Kinds {
				names := []string{k.Name}
				if k.List != nil {
					names = append(names, k.List.Name.Name)
				}
				for _, n := range names {
					add(v.Package.Path, n)
					if g.Hub != nil && g.Hub.Type(n) != nil {
						add(g.Hub.Path, n)
					}
				}
			}
		}
	}
	for _, pkg := range api.Packages {
		for _, t := range pkg.Types {
			if t.Markers.Root {
				add(pkg.Path, t.Name.Name)
			}
		}
	}
	return roots
}

// pkgGen emits the deepcopy functions of one package and collects its diagnostics.
type pkgGen struct {
	pkg   *model.Package
	roots map[string]bool
	diags model.Diagnostics
}

// emitTypes adds the functions of every type of the package to f, in type-name order, and reports
// whether it added any.
func (g *pkgGen) emitTypes(f *jen.File) bool {
	types := append([]*model.Type(nil), g.pkg.Types...)
	sort.Slice(types, func(i, j int) bool { return types[i].Name.Name < types[j].Name.Name })
	emitted := false
	for _, t := range types {
		switch {
		case t.Kind == model.Struct:
			g.emitStruct(f, t)
		case t.Kind == model.Slice || t.Kind == model.Map:
			g.emitNamedRef(f, t)
		default:
			continue // a named basic type is copied by assignment
		}
		emitted = true
	}
	return emitted
}

// emitStruct emits DeepCopyInto, DeepCopy and, for a root, DeepCopyObject of a struct type.
func (g *pkgGen) emitStruct(f *jen.File, t *model.Type) {
	name := t.Name.Name
	if !t.HasMethod("DeepCopyInto") {
		body := []jen.Code{jen.Op("*").Id("out").Op("=").Op("*").Id("in")}
		for _, fld := range t.Fields {
			body = append(body, g.fieldCopy(t, fld)...)
		}
		f.Commentf("DeepCopyInto is a generated deepcopy function, copying the receiver, writing into out. in must be non-nil.")
		f.Func().Params(jen.Id("in").Op("*").Id(name)).Id("DeepCopyInto").
			Params(jen.Id("out").Op("*").Id(name)).Block(body...)
		f.Line()
	}
	if !t.HasMethod("DeepCopy") {
		f.Commentf("DeepCopy is a generated deepcopy function, copying the receiver, creating a new %s; nil for a nil receiver.", name)
		f.Func().Params(jen.Id("in").Op("*").Id(name)).Id("DeepCopy").Params().Op("*").Id(name).Block(
			jen.If(jen.Id("in").Op("==").Nil()).Block(jen.Return(jen.Nil())),
			jen.Id("out").Op(":=").New(jen.Id(name)),
			jen.Id("in").Dot("DeepCopyInto").Call(jen.Id("out")),
			jen.Return(jen.Id("out")),
		)
		f.Line()
	}
	if !g.roots[name] || t.HasMethod("DeepCopyObject") {
		return
	}
	f.Commentf("DeepCopyObject is a generated deepcopy function, copying the receiver, creating a new runtime.Object; nil for a nil receiver.")
	f.Func().Params(jen.Id("in").Op("*").Id(name)).Id("DeepCopyObject").Params().Qual(runtimePkg, "Object").Block(
		jen.If(jen.Id("c").Op(":=").Id("in").Dot("DeepCopy").Call(), jen.Id("c").Op("!=").Nil()).Block(jen.Return(jen.Id("c"))),
		jen.Return(jen.Nil()),
	)
	f.Line()
	f.Commentf("%s is a root type: the scheme stores it as a runtime.Object.", name)
	f.Var().Id("_").Qual(runtimePkg, "Object").Op("=").Parens(jen.Op("*").Id(name)).Parens(jen.Nil())
	f.Line()
}

// emitNamedRef emits value-receiver DeepCopyInto and DeepCopy for a named slice or map type,
// as deepcopy-gen does.
func (g *pkgGen) emitNamedRef(f *jen.File, t *model.Type) {
	name := t.Name.Name
	ref := &model.TypeRef{Kind: model.Named, Named: t}
	if !t.HasMethod("DeepCopyInto") {
		body := append([]jen.Code{jen.Id("in").Op(":=").Op("&").Id("in")}, g.copyTo(ref, site{pos: t.Pos, what: "type " + name})...)
		f.Commentf("DeepCopyInto is a generated deepcopy function, copying the receiver, writing into out. in must be non-nil.")
		f.Func().Params(jen.Id("in").Id(name)).Id("DeepCopyInto").
			Params(jen.Id("out").Op("*").Id(name)).Block(jen.Block(body...))
		f.Line()
	}
	if !t.HasMethod("DeepCopy") {
		f.Commentf("DeepCopy is a generated deepcopy function, copying the receiver, creating a new %s; nil for a nil receiver.", name)
		f.Func().Params(jen.Id("in").Id(name)).Id("DeepCopy").Params().Id(name).Block(
			jen.If(jen.Id("in").Op("==").Nil()).Block(jen.Return(jen.Nil())),
			jen.Id("out").Op(":=").New(jen.Id(name)),
			jen.Id("in").Dot("DeepCopyInto").Call(jen.Id("out")),
			jen.Return(jen.Op("*").Id("out")),
		)
		f.Line()
	}
}
