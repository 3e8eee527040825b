package jsoncodec

import (
	"path/filepath"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Name is the generator's name and the <name> of the zz_generated.<name>.go files it writes.
const Name = "json"

// FileName is the base name of the file written in every API package with a supported struct.
const FileName = "zz_generated." + Name + ".go"

// New returns the JSON codec generator.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name implements emit.Generator.
func (generator) Name() string { return Name }

// Generate implements emit.Generator: one zz_generated.json.go per API package that declares
// a supported struct type, keyed by absolute path. Errors: a model.Diagnostics naming every
// hand-written function that has the name of a generated one, or a rendering failure.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	names := emit.PackageNames(api)
	a := newAnalysis()
	var fs emit.Files
	for _, pkg := range api.Packages {
		g := &gen{a: a, pkg: pkg.Path, local: map[*model.Type]string{}, encPrefix: "jsonEncode", decPrefix: "jsonDecode"}
		var types []*model.Type
		for _, t := range pkg.Types { // sorted by name
			if ok, _ := a.supported(t); ok {
				g.local[t] = t.Name.Name
				types = append(types, t)
			}
		}
		if len(types) == 0 {
			continue
		}
		for _, t := range types {
			for _, fn := range []string{g.encPrefix + t.Name.Name, g.decPrefix + t.Name.Name} {
				if pos, ok := pkg.Funcs[fn]; ok {
					fs.Report(model.Diagnostic{Pos: pos, Message: "cannot generate the JSON codec of " + t.Name.Name + ": function " + fn + " is declared by hand"})
				}
			}
		}
		f := emit.NewFile(pkg.Path, pkg.Name, names)
		g.emit(f, types)
		fs.Add(filepath.Join(pkg.Dir, FileName), f, "")
	}
	return fs.Result()
}

// gen emits the codecs of one set of types into one package.
type gen struct {
	a   *analysis
	pkg string // import path of the package the file belongs to
	// local names the types whose codecs this file holds: encPrefix+name and decPrefix+name.
	local                map[*model.Type]string
	encPrefix, decPrefix string
	// noShared is set when generating SharedPkg itself, whose types are all local.
	noShared bool
}

// codec returns the encoder and decoder functions of struct t: this file's, the shared
// package's, or none.
func (g *gen) codec(t *model.Type) (enc, dec *jen.Statement, ok bool) {
	if n, ok := g.local[t]; ok {
		return jen.Id(g.encPrefix + n), jen.Id(g.decPrefix + n), true
	}
	if n, ok := sharedTypes[t.Name.String()]; ok && !g.noShared {
		return jen.Qual(SharedPkg, "Encode"+n), jen.Qual(SharedPkg, "Decode"+n), true
	}
	return nil, nil, false
}

// emit adds the encoder and decoder of every type (sorted) and the init registering them.
func (g *gen) emit(f *jen.File, types []*model.Type) {
	register := make([]jen.Code, 0, len(types))
	for _, t := range types {
		enc, dec, _ := g.codec(t)
		typ := emit.Qual(t)
		if t.Name.Package == g.pkg {
			typ = jen.Id(t.Name.Name)
		}
		f.Commentf("%s writes in as encoding/json.Marshal(in) does.", enc.GoString())
		f.Func().Add(enc.Clone()).Params(jen.Id("w").Op("*").Qual(jsoncodecPkg, "Writer"), jen.Id("in").Op("*").Add(typ.Clone())).
			Block(g.encodeStruct(t)...)
		f.Line()
		f.Commentf("%s reads into out, a zero %s, as sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts does, or fails r.", dec.GoString(), t.Name.Name)
		f.Func().Add(dec.Clone()).Params(jen.Id("r").Op("*").Qual(jsoncodecPkg, "Reader"), jen.Id("out").Op("*").Add(typ.Clone())).
			Block(g.decodeStruct(t)...)
		f.Line()
		register = append(register, jen.Qual(jsoncodecPkg, "Register").Call(enc, dec))
	}
	f.Comment("init registers the codecs with jsoncodec, where Marshal, Unmarshal, Writer.Value and Reader.Value find them.")
	f.Func().Id("init").Params().Block(register...)
}
