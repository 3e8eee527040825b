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
// group with a separate hub, and, in a group of several versions without one, one file per
// version package that conversions between two versions go in; a group whose hub is its only
// version gets none. Errors: a model.Diagnostics listing every field that cannot be converted
// without a hand-written Convert_ function.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "conversion".
func (generator) Name() string { return "conversion" }

// Generate emits zz_generated.conversion.go for every version package of every group that has
// a separate hub package, and for the version packages of a multi-version group without one
// that hold conversions between versions (versionFiles).
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	for _, g := range api.Groups {
		var files []*file
		switch {
		case g.Hub == nil:
		case !g.HubIsVersion:
			for _, v := range g.Versions {
				set := &peerSet{other: g.Hub, home: v.Package.Path, internal: true, pairs: peerPairs(g.Hub, v.Package)}
				files = append(files, &file{home: v.Package, peers: []*peerSet{set}})
			}
		case len(g.Versions) > 1:
			var ds model.Diagnostics
			files, ds = versionFiles(g)
			fs.Report(ds...)
		}
		for _, f := range files {
			out, ds, err := f.generate()
			fs.Fail(err)
			fs.Report(ds...)
			if out != nil {
				fs.Put(filepath.Join(f.home.Dir, fileName), out)
			}
		}
	}
	return fs.Result()
}

// file is one zz_generated.conversion.go: the conversions between the types of package home
// and those of each peer set's package, declared in home.
type file struct {
	home  *model.Package
	peers []*peerSet
}

// peerSet is the pairs of home's types and another package's that a file converts.
type peerSet struct {
	other *model.Package
	// home is the import path of the file's package.
	home string
	// internal is set when other is the group's internal (hub) package, named "hub" in
	// messages.
	internal bool
	pairs    []pair
}

// pair is one type of the file's package (version) and its same-named peer in the other
// package (hub).
type pair struct {
	version, hub *model.Type
	// spoke, when set, is the one of the two that is a spoke root type with
	// controller-runtime's ConvertTo and ConvertFrom (model.Type.Convertible): the pair
	// converts by calling them instead of field by field.
	spoke *model.Type
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

// generate renders the file, or returns nil when no type has a peer.
func (f *file) generate() ([]byte, model.Diagnostics, error) {
	names := map[string]string{}
	var dirs []direction
	var bodies []jen.Code
	var diags model.Diagnostics
	for _, set := range f.peers {
		c := &converter{hub: set.other, ver: f.home, internal: set.internal}
		for _, p := range set.pairs {
			for _, d := range []direction{
				{from: p.version, to: p.hub, fromPkg: f.home, toPkg: set.other},
				{from: p.hub, to: p.version, fromPkg: set.other, toPkg: f.home},
			} {
				dirs = append(dirs, d)
				if p.spoke != nil {
					bodies = append(bodies, convertible(d, p.spoke))
				} else {
					bodies = append(bodies, c.autoConvert(d))
				}
				if !f.home.HasFunc(d.publicName()) {
					bodies = append(bodies, publicConvert(d))
				}
			}
		}
		if len(set.pairs) > 0 {
			names[set.other.Path] = set.other.Name
		}
		diags = append(diags, c.diags...)
	}
	if len(dirs) == 0 {
		return nil, nil, nil
	}
	if len(diags) > 0 {
		return nil, diags, nil
	}
	out := emit.NewFile(f.home.Path, f.home.Name, names)
	out.Func().Id("init").Params().Block(
		jen.Id("localSchemeBuilder").Dot("Register").Call(jen.Id("RegisterConversions")),
	)
	out.Line()
	registerConversions(out, f.home, dirs)
	for _, b := range bodies {
		out.Line()
		out.Add(b)
	}
	rendered, err := emit.Render(out, "")
	if err != nil {
		return nil, nil, err
	}
	return rendered, nil, nil
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

// convertible emits the autoConvert_ of a pair whose spoke has controller-runtime's
// Convertible methods, as controller-runtime's conversion webhook calls them: spoke to hub
// `in.ConvertTo(out)`, hub to spoke `out.ConvertFrom(in)`, each on a deep copy of in, which
// the user's function may alias into out or change (the webhook's input is a decoded copy of
// its own).
func convertible(d direction, spoke *model.Type) jen.Code {
	call := jen.Id("out").Dot("ConvertFrom").Call(jen.Id("in").Dot("DeepCopy").Call())
	if d.from == spoke {
		call = jen.Id("in").Dot("DeepCopy").Call().Dot("ConvertTo").Call(jen.Id("out"))
	}
	return jen.Func().Id(d.autoName()).Add(convertParams(d)).Error().Block(jen.Return(call))
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
