package validation

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Name is the generator's name.
const Name = "validation"

// FileName is the base name of the file written in every version package with root kinds.
const FileName = "zz_generated.validation.go"

// Import paths generated validation code refers to.
const (
	contextPkg    = "context"
	fmtPkg        = "fmt"
	regexpPkg     = "regexp"
	runtimePkg    = "k8s.io/apimachinery/pkg/runtime"
	fieldPkg      = "k8s.io/apimachinery/pkg/util/validation/field"
	operationPkg  = "k8s.io/apimachinery/pkg/api/operation"
	validatePkg   = "k8s.io/apimachinery/pkg/api/validate"
	safePkg       = "k8s.io/apimachinery/pkg/api/safe"
	equalityPkg   = "k8s.io/apimachinery/pkg/api/equality"
	setsPkg       = "k8s.io/apimachinery/pkg/util/sets"
	validationPkg = emit.RuntimePath + "/validation"
	celPkg        = emit.RuntimePath + "/validation/cel"
)

// importNames are the local names of the packages above that emit.ImportNames lacks.
var importNames = map[string]string{
	operationPkg:  "operation",
	validatePkg:   "validate",
	safePkg:       "safe",
	setsPkg:       "sets",
	validationPkg: "validation",
	celPkg:        "cel",
}

// New returns the validation generator.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name implements emit.Generator.
func (generator) Name() string { return Name }

// Generate implements emit.Generator: one zz_generated.validation.go per version package
// with root kinds, keyed by absolute path. Errors: a model.Diagnostics naming every CEL rule
// that does not compile, every pattern that is not a valid regular expression, every list-map
// key that is not a field of the list's items, and every default that violates its own
// field's constraints; or a rendering failure.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			if len(v.Kinds) == 0 {
				continue
			}
			pg := newPkgGen(v)
			f := pg.file()
			if len(pg.diags) > 0 {
				fs.Report(pg.diags...)
				continue
			}
			fs.Add(filepath.Join(v.Package.Dir, FileName), f, "")
		}
	}
	return fs.Result()
}

// pkgGen generates the validation of one version package.
type pkgGen struct {
	version *model.Version
	pkg     *model.Package
	// memo holds the types needs found to need a Validate_ function.
	memo map[*model.Type]bool
	// decls are the package-level variables (patterns, enum sets) and rules the CEL rules to
	// compile, both in emission order.
	decls []jen.Code
	rules []ruleVar
	names map[string]int // variable names used, for uniqueness
	diags model.Diagnostics
}

func newPkgGen(v *model.Version) *pkgGen {
	return &pkgGen{version: v, pkg: v.Package, memo: map[*model.Type]bool{}, names: map[string]int{}}
}

// varName returns base, or base2, base3, ... when base is taken.
func (g *pkgGen) varName(base string) string {
	g.names[base]++
	if n := g.names[base]; n > 1 {
		return fmt.Sprintf("%s%d", base, n)
	}
	return base
}

// file renders the package's validation file; problems are recorded in g.diags.
func (g *pkgGen) file() *jen.File {
	names := map[string]string{g.pkg.Path: g.pkg.Name}
	for p, n := range importNames {
		names[p] = n
	}
	var funcs []jen.Code
	emitted := map[*model.Type]bool{}
	for _, t := range g.localTypes() {
		funcs = append(funcs, g.typeFunc(t), jen.Line())
		emitted[t] = true
	}
	// Then the types of other packages the package's values hold (validatable), round by round
	// in name order, as a function emitted may reach more of them.
	for {
		var next []*model.Type
		for t, needed := range g.memo {
			if needed && !emitted[t] && t.Name.Package != g.pkg.Path {
				next = append(next, t)
			}
		}
		if len(next) == 0 {
			break
		}
		sort.Slice(next, func(i, j int) bool { return g.funcName(next[i]) < g.funcName(next[j]) })
		for _, t := range next {
			funcs = append(funcs, g.typeFunc(t), jen.Line())
			emitted[t] = true
		}
	}
	f := emit.NewFile(g.pkg.Path, g.pkg.Name, names)
	f.Func().Id("init").Params().Block(jen.Id("localSchemeBuilder").Dot("Register").Call(jen.Id("RegisterValidations")))
	f.Line()
	g.registerFunc(f)
	f.Line()
	if len(g.rules) > 0 {
		g.rulesDecl(f)
		f.Line()
	}
	for _, d := range g.decls {
		f.Add(d)
		f.Line()
	}
	for _, c := range funcs {
		f.Add(c)
	}
	return f
}

// localTypes are the package's types that get a Validate_ function, sorted by name; every
// type is also checked for defaults that violate its constraints.
func (g *pkgGen) localTypes() []*model.Type {
	lists := map[*model.Type]bool{} // list kinds are never created or updated: no function
	for _, k := range g.version.Kinds {
		lists[k.List] = true
	}
	var out []*model.Type
	for _, t := range g.pkg.Types {
		g.checkDefaults(t)
		if (t.Kind == model.Struct || t.Kind == model.Basic) && !lists[t] {
			if g.hasFunc(t) {
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name.Name < out[j].Name.Name })
	return out
}

// roots are the version's root kinds that have checks (or a scale subresource whose replicas
// to check), sorted by name.
func (g *pkgGen) roots() []*model.Kind {
	var out []*model.Kind
	for _, k := range g.version.Kinds {
		if k.Type != nil && (g.hasFunc(k.Type) || scaleReplicas(k) != nil) {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type.Name.Name < out[j].Type.Name.Name })
	return out
}

// scaleReplicas returns the Go selector of the field the kind's scale specpath names
// (".spec.replicas": Spec, Replicas) when every step is a field of a struct value and the
// last an integer or a pointer to one; nil otherwise (no scale subresource, or a path apigen
// does not check).
func scaleReplicas(k *model.Kind) []*model.Field {
	if k.Scale == nil || !strings.HasPrefix(k.Scale.SpecReplicasPath, ".") {
		return nil
	}
	t := k.Type
	var sel []*model.Field
	steps := strings.Split(strings.TrimPrefix(k.Scale.SpecReplicasPath, "."), ".")
	for i, step := range steps {
		f := jsonField(t, step)
		if f == nil {
			return nil
		}
		sel = append(sel, f)
		if i == len(steps)-1 {
			ref := f.Type
			if ref.Kind == model.Pointer {
				ref = ref.Elem
			}
			if !isInteger(ref) {
				return nil
			}
			break
		}
		if f.Type.Kind != model.Named || f.Type.Named.Kind != model.Struct {
			return nil
		}
		t = f.Type.Named
	}
	return sel
}

// registerFunc emits RegisterValidations: one scheme validation function per root kind, as
// Kubernetes' validation-gen does.
func (g *pkgGen) registerFunc(f *jen.File) {
	var body []jen.Code
	for _, k := range g.roots() {
		t := k.Type
		ptr := jen.Op("*").Add(emit.Qual(t))
		// A kind with CEL rules reports them as a CRD does: not at all when a schema error
		// blocks them (cel.Gate). A kind with a scale subresource has its spec replicas
		// checked as a CRD's (validation.ScaleReplicas).
		gate := func(call jen.Code) jen.Code { return call }
		if g.hasRules(t, map[*model.Type]bool{}) {
			gate = func(call jen.Code) jen.Code { return jen.Qual(celPkg, "Gate").Call(jen.Id("ctx"), call) }
		}
		if !g.hasFunc(t) {
			gate = func(jen.Code) jen.Code { return jen.Qual(fieldPkg, "ErrorList").Call(jen.Nil()) } // only the scale check
		}
		if sel := scaleReplicas(k); sel != nil {
			inner := gate
			field := jen.Id("obj").Assert(ptr.Clone())
			for _, f := range sel {
				field = field.Dot(f.Name)
			}
			if sel[len(sel)-1].Type.Kind != model.Pointer {
				field = jen.Op("&").Add(field)
			}
			check := jen.Qual(validationPkg, "ScaleReplicas").Call(jen.Lit(k.Scale.SpecReplicasPath), field)
			gate = func(call jen.Code) jen.Code { return jen.Append(inner(call), check.Clone().Op("...")) }
		}
		body = append(body, jen.Id("scheme").Dot("AddValidationFunc").Call(
			jen.Parens(ptr.Clone()).Parens(jen.Nil()),
			jen.Func().Params(jen.Id("ctx").Qual(contextPkg, "Context"), jen.Id("op").Qual(operationPkg, "Operation"),
				jen.List(jen.Id("obj"), jen.Id("oldObj")).Interface()).Qual(fieldPkg, "ErrorList").Block(
				jen.Switch(jen.Id("op").Dot("Type")).Block(
					jen.Case(jen.Qual(operationPkg, "Create")).Block(jen.Return(gate(jen.Id(g.funcName(t)).Call(
						jen.Id("ctx"), jen.Id("op"), jen.Nil(), jen.Id("obj").Assert(ptr.Clone()), jen.Nil())))),
					jen.Case(jen.Qual(operationPkg, "Update")).Block(jen.Return(gate(jen.Id(g.funcName(t)).Call(
						jen.Id("ctx"), jen.Id("op"), jen.Nil(), jen.Id("obj").Assert(ptr.Clone()),
						jen.Qual(safePkg, "Cast").Types(ptr.Clone()).Call(jen.Id("oldObj")))))),
				),
				jen.Return(jen.Qual(fieldPkg, "ErrorList").Values(jen.Qual(fieldPkg, "InternalError").Call(jen.Nil(),
					jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("no validation found for %T, operation: %v"), jen.Id("obj"), jen.Id("op"))))),
			)))
	}
	body = append(body, jen.Return(jen.Nil()))
	f.Comment("RegisterValidations registers the declarative validation of the package's root kinds with scheme,")
	f.Comment("for create and update, as Kubernetes' validation-gen does.")
	f.Func().Id("RegisterValidations").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(body...)
}
