package roundtrip

import (
	"path/filepath"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// Import paths generated round-trip tests refer to.
const (
	runtimePkg       = "k8s.io/apimachinery/pkg/runtime"
	roundtriptestPkg = emit.RuntimePath + "/roundtriptest"
)

// File is the name of the file written in every group's install package.
const File = "zz_generated.roundtrip_test.go"

// New returns the round-trip test generator. Generate returns zz_generated.roundtrip_test.go
// per group that has a kind; it reports no problems of its own.
func New() emit.Generator { return generator{} }

type generator struct{}

// Name returns "roundtrip".
func (generator) Name() string { return "roundtrip" }

// Generate emits the round-trip test of every group with a kind.
func (generator) Generate(api *model.API) (map[string][]byte, error) {
	var fs emit.Files
	for _, g := range api.Groups {
		kinds := kindsOf(g)
		if len(kinds) == 0 {
			continue
		}
		fs.Add(filepath.Join(g.InstallDir, File), testFile(g, kinds), "")
	}
	return fs.Result()
}

// kind is one kind of a group as the test round-trips it.
type kind struct {
	name, hub, storage string
	versions           []string
}

// kindsOf returns g's kinds sorted by name, each with its hub, storage version and the served
// versions that have it (most preferred first), the storage version added when unserved.
func kindsOf(g *model.Group) []kind {
	names := g.KindNames()
	var out []kind
	for _, name := range names {
		storage := g.StorageVersionOf(name)
		k := kind{name: name, hub: "", storage: storage.Name}
		if g.HubIsVersion {
			k.hub = g.HubOf(name).Name
		}
		for _, v := range g.Versions {
			if vk := v.Kind(name); vk != nil && (!vk.Unserved || v == storage) {
				k.versions = append(k.versions, v.Name)
			}
		}
		out = append(out, k)
	}
	return out
}

// testFile renders TestRoundTrip for g.
func testFile(g *model.Group, kinds []kind) *jen.File {
	names := map[string]string{g.InstallPath: "install", roundtriptestPkg: "roundtriptest"}
	if g.Fuzzer != nil {
		names[g.Fuzzer.Path] = g.Fuzzer.Name
	}
	f := emit.NewFile(g.InstallPath+"_test", "install_test", names)
	entries := make([]jen.Code, len(kinds))
	for i, k := range kinds {
		hub := jen.Qual(runtimePkg, "APIVersionInternal")
		if k.hub != "" {
			hub = jen.Lit(k.hub)
		}
		versions := make([]jen.Code, len(k.versions))
		for j, v := range k.versions {
			versions[j] = jen.Lit(v)
		}
		entries[i] = jen.Values(
			jen.Id("Name").Op(":").Lit(k.name),
			jen.Id("Hub").Op(":").Add(hub),
			jen.Id("Storage").Op(":").Lit(k.storage),
			jen.Id("Versions").Op(":").Index().String().Values(versions...),
		)
	}
	fields := []jen.Code{
		jen.Id("Name").Op(":").Lit(g.Name),
		jen.Id("Install").Op(":").Qual(g.InstallPath, "Install"),
		jen.Id("Kinds").Op(":").Index().Qual(roundtriptestPkg, "Kind").Custom(multi, entries...),
	}
	fuzzer := g.Hub.Path + "/fuzzer"
	if g.Fuzzer != nil {
		fuzzer = g.Fuzzer.Path
		fields = append(fields, jen.Id("FuzzerFuncs").Op(":").Qual(g.Fuzzer.Path, "Funcs"))
	}
	fields = append(fields, jen.Id("FuzzerPackage").Op(":").Lit(fuzzer))
	doc := "TestRoundTrip fills random objects of every kind of " + g.DisplayName() + ", in its internal version and every " +
		"served version, converts each to the hub and through every version's JSON and back, and fails with the field path " +
		"of anything lost, as Kubernetes' round-trip tests (runtime/roundtriptest.Run)."
	if g.HubIsVersion {
		doc = "TestRoundTrip fills random objects of every kind of " + g.DisplayName() + " in every served version, converts " +
			"each to the kind's hub version and through every version's JSON and back, and fails with the field path of " +
			"anything lost, as Kubernetes' round-trip tests (runtime/roundtriptest.Run)."
	}
	if g.Fuzzer != nil {
		doc += " Values not every version can represent are kept out by " + g.Fuzzer.Name + ".Funcs."
	} else {
		doc += " Objects are filled by apimachinery's metafuzzer alone: Funcs in package " + fuzzer +
			" would keep them within what every version can represent."
	}
	for _, line := range wrap(doc, 96) {
		f.Comment(line)
	}
	f.Func().Id("TestRoundTrip").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Qual(roundtriptestPkg, "Run").Call(jen.Id("t"), jen.Qual(roundtriptestPkg, "Group").Custom(multi, fields...)),
	)
	return f
}

// multi renders a composite literal one element per line.
var multi = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}

// wrap splits text into lines of at most width characters at spaces (a longer word stays
// whole).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
