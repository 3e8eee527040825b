package equality

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Name is the generator's name and the <name> of the zz_generated.<name>.go files it writes.
const Name = "equality"

// FileName is the base name of the file written in every API package.
const FileName = "zz_generated." + Name + ".go"

// Import paths the generated code refers to.
const (
	equalityPkg = "k8s.io/apimachinery/pkg/api/equality"
	reflectPkg  = "reflect"
	resourcePkg = "k8s.io/apimachinery/pkg/api/resource"
	metav1Pkg   = "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// New returns the equality generator.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name implements emit.Generator.
func (generator) Name() string { return Name }

// Generate implements emit.Generator: it returns one zz_generated.equality.go per API package
// that declares a struct, named slice, named map or named array, keyed by absolute path.
// Every type can be compared (what has no generated comparison falls back to
// equality.Semantic.DeepEqual), so the only error is a rendering failure.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	names := emit.PackageNames(api)
	var fs emit.Files
	for _, pkg := range api.Packages {
		f := emit.NewFile(pkg.Path, pkg.Name, names)
		types := append([]*model.Type(nil), pkg.Types...)
		sort.Slice(types, func(i, j int) bool { return types[i].Name.Name < types[j].Name.Name })
		emitted := false
		for _, t := range types {
			if !HasFunc(t) || pkg.HasFunc(FuncName(t)) {
				continue // no function, or a hand-written one
			}
			emitFunc(f, t)
			emitted = true
		}
		if emitted {
			fs.Add(filepath.Join(pkg.Dir, FileName), f, "")
		}
	}
	return fs.Result()
}

// FuncName returns the name of T's semantic equality function, "SemanticEqual_T".
func FuncName(t *model.Type) string { return "SemanticEqual_" + t.Name.Name }

// HasFunc reports whether the package of t declares SemanticEqual_T once this generator ran:
// t is a local struct, named slice, named map or named array type.
func HasFunc(t *model.Type) bool {
	if !t.Local {
		return false
	}
	switch t.Kind {
	case model.Struct:
		return true
	case model.Slice, model.Map, model.Array:
		return t.Underlying != nil
	}
	return false
}

// Call returns `<pkg>.SemanticEqual_T(a, b)` for a and b of type *T; HasFunc(t) must hold.
func Call(t *model.Type, a, b jen.Code) *jen.Statement {
	return jen.Qual(t.Name.Package, FuncName(t)).Call(a, b)
}

// emitFunc emits SemanticEqual_T.
func emitFunc(f *jen.File, t *model.Type) {
	name := t.Name.Name
	var body []jen.Code
	if t.Kind == model.Struct && (t.HasUnexported || t.EmbedsUnexported) {
		// Unexported fields are not in the model: let the reflection walk see them.
		body = []jen.Code{jen.Return(deepEqual(jen.Id("a"), jen.Id("b")))}
	} else {
		// The same struct, slice, map or array at one address is equal to itself, even when
		// it holds a NaN, as the reflection walk's address check makes it.
		body = []jen.Code{
			jen.If(jen.Id("a").Op("==").Id("b")).Block(jen.Return(jen.True())),
			jen.If(jen.Id("a").Op("==").Nil().Op("||").Id("b").Op("==").Nil()).Block(jen.Return(jen.False())),
		}
		c := &comparer{}
		if t.Kind == model.Struct {
			for _, fld := range t.Fields {
				body = append(body, c.stmts(fld.Type, "a."+fld.Name, "b."+fld.Name)...)
			}
		} else {
			body = append(body, c.stmts(t.Underlying, "(*a)", "(*b)")...)
		}
		body = append(body, jen.Return(jen.True()))
	}
	f.Commentf("%s reports whether a and b are equal as equality.Semantic.DeepEqual(a, b) reports it:", FuncName(t)).Line().
		Comment("nil and empty slices and maps are equal, quantities compare by value, times by instant.")
	f.Func().Id(FuncName(t)).Params(jen.List(jen.Id("a"), jen.Id("b")).Op("*").Id(name)).Bool().Block(body...)
	f.Line()
}

// deepEqual is `equality.Semantic.DeepEqual(a, b)`.
func deepEqual(a, b jen.Code) *jen.Statement {
	return jen.Qual(equalityPkg, "Semantic").Dot("DeepEqual").Call(a, b)
}

// returnFalseIf is `if cond { return false }`.
func returnFalseIf(cond jen.Code) jen.Code {
	return jen.If(cond).Block(jen.Return(jen.False()))
}

// varName returns base suffixed by the nesting depth ("i", "i1", "i2"), so nested loops do
// not shadow each other.
func varName(base string, depth int) string {
	if depth == 0 {
		return base
	}
	return fmt.Sprintf("%s%d", base, depth)
}
