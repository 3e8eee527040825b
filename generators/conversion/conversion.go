package conversion

import (
	"path/filepath"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Import paths generated conversion code refers to.
const (
	conversionPkg = "k8s.io/apimachinery/pkg/conversion"
	runtimePkg    = "k8s.io/apimachinery/pkg/runtime"
	metav1Pkg     = "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fileName is the name of the file written in every version package.
const fileName = "zz_generated.conversion.go"

// New returns the conversion generator. Generate returns one file per version package of every
// group with a separate hub; groups whose hub is their only version get none. Errors: a
// model.Diagnostics listing every field that cannot be converted without a hand-written
// Convert_ function.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "conversion".
func (generator) Name() string { return "conversion" }

// Generate emits zz_generated.conversion.go for every version package of every group that has
// a separate hub package.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	for _, g := range api.Groups {
		if g.HubIsVersion || g.Hub == nil {
			continue
		}
		for _, v := range g.Versions {
			out, ds, err := generateVersion(g.Hub, v.Package)
			fs.Fail(err)
			fs.Report(ds...)
			if out != nil {
				fs.Put(filepath.Join(v.Package.Dir, fileName), out)
			}
		}
	}
	return fs.Result()
}

// pair is one version type and its same-named hub peer.
type pair struct {
	version, hub *model.Type
}

// direction is one conversion of a pair: from one package's type into the other's.
type direction struct {
	from, to       *model.Type
	fromPkg, toPkg *model.Package
}

func (d direction) suffix() string {
	return d.fromPkg.Name + "_" + d.from.Name.Name + "_To_" + d.toPkg.Name + "_" + d.to.Name.Name
}

// publicName is the Convert_ function of the direction, autoName its generated body.
func (d direction) publicName() string { return "Convert_" + d.suffix() }
func (d direction) autoName() string   { return "autoConvert_" + d.suffix() }

// generateVersion renders the conversion file of version package ver against hub, or nil when
// no type has a peer.
func generateVersion(hub, ver *model.Package) ([]byte, model.Diagnostics, error) {
	pairs := peerPairs(hub, ver)
	if len(pairs) == 0 {
		return nil, nil, nil
	}
	c := &converter{hub: hub, ver: ver}
	var dirs []direction
	for _, p := range pairs {
		dirs = append(dirs,
			direction{from: p.version, to: p.hub, fromPkg: ver, toPkg: hub},
			direction{from: p.hub, to: p.version, fromPkg: hub, toPkg: ver})
	}
	f := emit.NewFile(ver.Path, ver.Name, map[string]string{hub.Path: hub.Name})
	f.Func().Id("init").Params().Block(
		jen.Id("localSchemeBuilder").Dot("Register").Call(jen.Id("RegisterConversions")),
	)
	f.Line()
	registerConversions(f, ver, dirs)
	for _, d := range dirs {
		f.Line()
		f.Add(c.autoConvert(d))
		if !ver.HasFunc(d.publicName()) {
			f.Line()
			f.Add(publicConvert(d))
		}
	}
	if len(c.diags) > 0 {
		return nil, c.diags, nil
	}
	out, err := emit.Render(f, "")
	if err != nil {
		return nil, nil, err
	}
	return out, nil, nil
}

// peerPairs returns the exported struct types of ver that have a same-named struct in hub,
// in ver's (sorted) order.
func peerPairs(hub, ver *model.Package) []pair {
	var pairs []pair
	for _, t := range ver.Types {
		if t.Kind != model.Struct || !isExported(t.Name.Name) {
			continue
		}
		if h := hub.Type(t.Name.Name); h != nil && h.Kind == model.Struct {
			pairs = append(pairs, pair{version: t, hub: h})
		}
	}
	return pairs
}

func isExported(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }

// registerConversions emits RegisterConversions: every generated Convert_ registered with
// AddGeneratedConversionFunc, then every hand-written one with AddConversionFunc, as
// conversion-gen orders them.
func registerConversions(f *jen.File, ver *model.Package, dirs []direction) {
	var body []jen.Code
	for _, d := range dirs {
		if !ver.HasFunc(d.publicName()) {
			body = append(body, register("AddGeneratedConversionFunc", d))
		}
	}
	for _, d := range dirs {
		if ver.HasFunc(d.publicName()) {
			body = append(body, register("AddConversionFunc", d))
		}
	}
	body = append(body, jen.Return(jen.Nil()))
	f.Comment("RegisterConversions adds conversion functions to the given scheme.")
	f.Comment("Public to allow building arbitrary schemes.")
	f.Func().Id("RegisterConversions").Params(jen.Id("s").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(body...)
}

// register emits one `if err := s.<method>((*A)(nil), (*B)(nil), func...); err != nil` block.
func register(method string, d direction) jen.Code {
	from, to := emit.Qual(d.from), emit.Qual(d.to)
	fn := jen.Func().Params(jen.List(jen.Id("a"), jen.Id("b")).Interface(), jen.Id("scope").Qual(conversionPkg, "Scope")).Error().Block(
		jen.Return(jen.Id(d.publicName()).Call(
			jen.Id("a").Assert(jen.Op("*").Add(from)),
			jen.Id("b").Assert(jen.Op("*").Add(to)),
			jen.Id("scope"),
		)),
	)
	return jen.If(
		jen.Err().Op(":=").Id("s").Dot(method).Call(
			jen.Parens(jen.Op("*").Add(from)).Call(jen.Nil()),
			jen.Parens(jen.Op("*").Add(to)).Call(jen.Nil()),
			fn,
		),
		jen.Err().Op("!=").Nil(),
	).Block(jen.Return(jen.Err()))
}

// publicConvert emits the generated Convert_ function delegating to autoConvert_.
func publicConvert(d direction) jen.Code {
	return jen.Comment(d.publicName() + " is an autogenerated conversion function.").Line().
		Func().Id(d.publicName()).Add(convertParams(d)).Error().Block(
		jen.Return(jen.Id(d.autoName()).Call(jen.Id("in"), jen.Id("out"), jen.Id("s"))),
	)
}

// convertParams is (in *From, out *To, s conversion.Scope).
func convertParams(d direction) *jen.Statement {
	return jen.Params(
		jen.Id("in").Op("*").Add(emit.Qual(d.from)),
		jen.Id("out").Op("*").Add(emit.Qual(d.to)),
		jen.Id("s").Qual(conversionPkg, "Scope"),
	)
}
