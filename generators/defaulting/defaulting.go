package defaulting

import (
	"path/filepath"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Name is the generator's name; the file it writes is zz_generated.defaults.go, the name
// defaulter-gen uses.
const Name = "defaulting"

// FileName is the base name of the file written in every version package.
const FileName = "zz_generated.defaults.go"

const runtimePkg = "k8s.io/apimachinery/pkg/runtime"

// New returns the defaulting generator.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name implements emit.Generator.
func (generator) Name() string { return Name }

// Generate implements emit.Generator: one zz_generated.defaults.go per version package of
// every group, keyed by absolute path. Errors: a model.Diagnostics naming every default that
// is not valid JSON for its field's type, or a rendering failure.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	pkgs := make(map[string]*model.Package, len(api.Packages))
	for _, p := range api.Packages {
		pkgs[p.Path] = p
	}
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			pg := newPkgGen(v, pkgs)
			pg.validate()
			if len(pg.diags) > 0 {
				fs.Report(pg.diags...)
				continue
			}
			fs.Add(filepath.Join(v.Package.Dir, FileName), pg.file(), "")
		}
	}
	return fs.Result()
}

// pkgGen generates the defaulters of one version package.
type pkgGen struct {
	pkg *model.Package
	// pkgs holds every API package of the load by import path: the types of another one that
	// the package's types reach are defaulted as its own (with that package's hooks).
	pkgs map[string]*model.Package
	// roots are the package's root types, sorted by name; withDefaults those of them that get
	// a SetObjectDefaults_ function.
	roots        []*model.Type
	withDefaults map[*model.Type]bool
	// memo holds the types hasDefaults found to have defaults.
	memo  map[*model.Type]bool
	diags model.Diagnostics
	// decoded are the defaults the functions copy from package variables, in order of use.
	decoded []decodedDefault
}

func newPkgGen(v *model.Version, pkgs map[string]*model.Package) *pkgGen {
	g := &pkgGen{pkg: v.Package, pkgs: pkgs, withDefaults: map[*model.Type]bool{}, memo: map[*model.Type]bool{}}
	seen := map[*model.Type]bool{}
	add := func(t *model.Type) {
		if t != nil && !seen[t] && t.Name.Package == g.pkg.Path && t.Kind == model.Struct {
			seen[t] = true
			g.roots = append(g.roots, t)
		}
	}
	for _, k := range v.Kinds {
		add(k.Type)
		add(k.List)
	}
	for _, t := range v.Package.Types {
		if t.Markers.Root {
			add(t)
		}
	}
	sort.Slice(g.roots, func(i, j int) bool { return g.roots[i].Name.Name < g.roots[j].Name.Name })
	for _, t := range g.roots {
		if g.hasDefaults(t, map[*model.Type]bool{}) {
			g.withDefaults[t] = true
		}
	}
	return g
}

// validate records a diagnostic for every default in the package that does not unmarshal
// into its field's type.
func (g *pkgGen) validate() {
	for _, t := range g.pkg.Types {
		for _, f := range t.Fields {
			if f.Markers.Default == nil {
				continue
			}
			if err := checkDefault(f.Type, *f.Markers.Default); err != nil {
				g.diags = append(g.diags, model.Diagnostic{Pos: f.Pos, Message: defaultMessage(t, f, err)})
			}
		}
	}
}

// hasDefaults reports whether defaulting a value of type t does anything: t is declared in an
// API package (this one, or another, as the v1 types Gateway API's v1beta1 aliases) and has a
// SetDefaults_ hook there, or a field with a default or with such a type, at any depth. Types
// of other packages (apimachinery's, ...) are left alone. stack holds the types being walked,
// to break cycles.
func (g *pkgGen) hasDefaults(t *model.Type, stack map[*model.Type]bool) bool {
	if g.pkgs[t.Name.Package] == nil && t.Name.Package != g.pkg.Path || stack[t] {
		return false
	}
	if g.memo[t] {
		return true
	}
	stack[t] = true
	defer delete(stack, t)
	has := g.hasHook(t)
	if t.Kind != model.Struct && t.Underlying != nil {
		has = has || g.refHasDefaults(t.Underlying, stack)
	}
	for _, f := range t.Fields {
		if has {
			break
		}
		has = f.Markers.Default != nil || g.refHasDefaults(f.Type, stack)
	}
	if has {
		g.memo[t] = true // a false result may depend on a cycle cut above, so only true is kept
	}
	return has
}

// refHasDefaults reports whether defaulting a value of type ref does anything.
func (g *pkgGen) refHasDefaults(ref *model.TypeRef, stack map[*model.Type]bool) bool {
	switch ref.Kind {
	case model.Named:
		return g.hasDefaults(ref.Named, stack)
	case model.Pointer, model.Slice, model.Array, model.Map:
		return g.refHasDefaults(ref.Elem, stack)
	}
	return false
}

// handRegistration is the hand-written function through which a Kubernetes-style register.go
// adds RegisterDefaults to its SchemeBuilder (`func addDefaultingFuncs(scheme) error { return
// RegisterDefaults(scheme) }`); a package declaring it gets no init registering them again.
const handRegistration = "addDefaultingFuncs"

// hookName is the name of t's hand-written defaulting function, as defaulter-gen looks for it.
func hookName(t *model.Type) string { return "SetDefaults_" + t.Name.Name }

// hasHook reports whether t's package declares t's hand-written defaulting function.
func (g *pkgGen) hasHook(t *model.Type) bool {
	p := g.pkgs[t.Name.Package]
	if t.Name.Package == g.pkg.Path {
		p = g.pkg
	}
	return p != nil && p.HasFunc(hookName(t))
}

// objectDefaultsName is the name of the generated defaulting function of root type t.
func objectDefaultsName(t *model.Type) string { return "SetObjectDefaults_" + t.Name.Name }

// file renders the package's defaults file.
func (g *pkgGen) file() *jen.File {
	f := emit.NewFile(g.pkg.Path, g.pkg.Name, nil)
	if !g.pkg.HasFunc(handRegistration) {
		f.Func().Id("init").Params().Block(jen.Id("localSchemeBuilder").Dot("Register").Call(jen.Id("RegisterDefaults")))
		f.Line()
	}
	var regs []jen.Code
	for _, t := range g.roots {
		if !g.withDefaults[t] {
			continue
		}
		name := t.Name.Name
		regs = append(regs, jen.Id("scheme").Dot("AddTypeDefaultingFunc").Call(
			jen.Op("&").Id(name).Values(),
			jen.Func().Params(jen.Id("obj").Interface()).Block(
				jen.Id(objectDefaultsName(t)).Call(jen.Id("obj").Assert(jen.Op("*").Id(name))),
			),
		))
	}
	regs = append(regs, jen.Return(jen.Nil()))
	f.Comment("RegisterDefaults adds defaulters functions to the given scheme.")
	f.Comment("Public to allow building arbitrary schemes.")
	f.Comment("All generated defaulters are covering - they call all nested defaulters.")
	f.Func().Id("RegisterDefaults").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(regs...)
	var funcs []jen.Code // walked first: the walk declares the decoded defaults
	for _, t := range g.roots {
		if !g.withDefaults[t] {
			continue
		}
		w := &walker{g: g, root: t}
		funcs = append(funcs, jen.Line(),
			jen.Commentf("%s sets the defaults of every field of in that has one, at any depth,", objectDefaultsName(t)),
			jen.Comment("calling the package's SetDefaults_ functions on the way."),
			jen.Func().Id(objectDefaultsName(t)).Params(jen.Id("in").Op("*").Id(t.Name.Name)).
				Block(w.typeStmts(t, target{expr: "in", ptr: true}, map[*model.Type]bool{})...))
	}
	for _, d := range g.decoded {
		f.Line()
		f.Commentf("%s is the default %s as a %s, decoded once: the fields it defaults get", d.name, d.text, d.typ.Named.Name.Name)
		f.Comment("a deep copy of it.")
		f.Add(d.decl())
	}
	for _, c := range funcs {
		f.Add(c)
	}
	return f
}
