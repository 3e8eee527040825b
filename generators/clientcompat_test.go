package generators_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/generators/clientlayout"
	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/openapi"
)

// codeGeneratorVersion is the code-generator the generated clients are compared with; it
// matches the client-go and apimachinery apigen's module requires.
const codeGeneratorVersion = "v0.37.2"

// clientTools are code-generator's client tools, by binary name.
var clientTools = []string{"client-gen", "lister-gen", "informer-gen", "applyconfiguration-gen"}

// clientTrees are the corpus trees with +genclient kinds.
var clientTrees = []corpusTree{
	{name: "codegen", pattern: "./generators/testdata/corpus/codegen/..."},
	{name: "clients", pattern: "./generators/testdata/corpus/clients/..."},
}

// TestClientsMatchCodeGenerator runs code-generator's client-gen, lister-gen, informer-gen
// and applyconfiguration-gen (installed through the Go module proxy, as make bench-gen does)
// on each corpus tree with +genclient kinds, and compares the exported API of every package
// they write (types, their fields and method sets, functions, variables and constants, with
// their signatures, through go/types) with that of the packages apigen generates for the same
// types: a program written against code-generator's clients compiles against apigen's after
// changing only import paths. It is skipped, saying so, only when the module proxy cannot be
// reached.
//
// Both outputs are type-checked in one go/packages load, as an overlay of the module below
// generators/testdata/clientcompat/{ours,theirs}/<tree> (nothing is written to the source
// tree), importing the corpus's API packages. The tools are installed once into a GOBIN under
// the user cache directory and reused (the first install takes about 15 s with a warm module
// cache). Each tree then costs about 15 s of CPU on this machine: some 3 s per code-generator
// tool (gengo parses the inputs' dependencies from source), 1.5 s for apigen and 5 s to
// type-check both outputs; the log line of each subtest says how the time went.
func TestClientsMatchCodeGenerator(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs code-generator")
	}
	t.Parallel()
	bin := installClientTools(t)
	root := moduleRoot(t)
	for _, tree := range clientTrees {
		t.Run(tree.name, func(t *testing.T) {
			start := time.Now()
			api, err := load.Load(root, tree.pattern)
			var diags model.Diagnostics
			if err != nil && (!errors.As(err, &diags) || diags.HasErrors()) {
				t.Fatalf("cannot load the %s corpus: %v", tree.name, err)
			}
			files, _ := firstPass(t, tree)
			gtree := clientlayout.Trees(api)[0]
			c := newComparison(root, tree.name, gtree)
			for path, b := range files {
				if rel, ok := strings.CutPrefix(path, gtree.Dir+string(filepath.Separator)); ok {
					c.overlay[filepath.Join(c.oursDir, rel)] = bytes.ReplaceAll(b, []byte(gtree.Path), []byte(c.oursPath))
				} else {
					c.overlay[path] = b // the API packages' own generated files, as apigen makes them now
				}
			}
			theirs := t.TempDir()
			genDone := time.Now()
			runCodeGenerator(t, bin, root, theirs, c.theirsPath, gtree)
			toolsDone := time.Now()
			c.addDir(t, theirs, c.theirsDir)
			apis := c.exportedAPIs(t, root)
			t.Logf("apigen %s, code-generator %s, type-checking both %s", genDone.Sub(start).Round(time.Millisecond),
				toolsDone.Sub(genDone).Round(time.Millisecond), time.Since(toolsDone).Round(time.Millisecond))
			want, got := apis[c.theirsPath], apis[c.oursPath]
			compareAPIs(t, want, got)
			t.Logf("%d exported identifiers of %d packages compared in %s", len(want), countPackages(want), time.Since(start).Round(time.Millisecond))
		})
	}
}

// comparison holds the two outputs of one tree as a go/packages overlay inside the module,
// below generators/testdata/clientcompat/{ours,theirs}/<tree>, directories that do not exist
// on disk.
type comparison struct {
	oursDir, theirsDir   string // absolute directories
	oursPath, theirsPath string // import paths
	overlay              map[string][]byte
}

func newComparison(root, name string, tree *clientlayout.Tree) *comparison {
	rel, err := filepath.Rel(root, tree.Dir)
	if err != nil {
		panic(err)
	}
	module := strings.TrimSuffix(tree.Path, "/"+filepath.ToSlash(rel))
	base := "generators/testdata/clientcompat/"
	return &comparison{
		oursDir: filepath.Join(root, filepath.FromSlash(base+"ours/"+name)), theirsDir: filepath.Join(root, filepath.FromSlash(base+"theirs/"+name)),
		oursPath: module + "/" + base + "ours/" + name, theirsPath: module + "/" + base + "theirs/" + name,
		overlay: map[string][]byte{},
	}
}

// addDir adds every file below src to the overlay at the same place below dst.
func (c *comparison) addDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		c.overlay[filepath.Join(dst, rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// exportedAPIs type-checks every package of the two outputs in one load (from root) and
// returns the exported API of each output, keyed by its import path prefix, with that prefix
// replaced by "<tree>" so the two compare.
func (c *comparison) exportedAPIs(t *testing.T, root string) map[string]map[string]string {
	t.Helper()
	seen := map[string]bool{}
	var patterns []string
	for path := range c.overlay {
		dir := filepath.Dir(path)
		for _, o := range [][2]string{{c.oursDir, c.oursPath}, {c.theirsDir, c.theirsPath}} {
			if rel, ok := strings.CutPrefix(dir, o[0]); ok && !seen[dir] {
				seen[dir] = true
				patterns = append(patterns, o[1]+filepath.ToSlash(rel))
			}
		}
	}
	sort.Strings(patterns)
	cfg := &packages.Config{Dir: root, Overlay: c.overlay, Mode: packages.NeedName | packages.NeedTypes | packages.NeedImports}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{c.oursPath: {}, c.theirsPath: {}}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		prefix := c.oursPath
		if strings.HasPrefix(p.PkgPath, c.theirsPath) {
			prefix = c.theirsPath
		}
		if p.Types != nil {
			exportedAPI(out[prefix], p.Types, prefix)
		}
	}
	return out
}

// writeFile writes b to path, creating its directory.
func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// installClientTools installs code-generator's client tools into a cached GOBIN and returns
// it, skipping the test when the module proxy is unreachable.
func installClientTools(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	bin := filepath.Join(cache, "apigen", "code-generator-"+codeGeneratorVersion)
	missing := false
	for _, tool := range clientTools {
		if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
			missing = true
		}
	}
	if !missing {
		return bin
	}
	dl := exec.Command("go", "mod", "download", "-json", "k8s.io/code-generator@"+codeGeneratorVersion)
	dl.Dir = t.TempDir()
	if out, err := dl.CombinedOutput(); err != nil {
		t.Skipf("the Go module proxy is unreachable, so code-generator %s cannot be installed to compare clients with: %v\n%s",
			codeGeneratorVersion, err, out)
	}
	args := []string{"install"}
	for _, tool := range clientTools {
		args = append(args, "k8s.io/code-generator/cmd/"+tool+"@"+codeGeneratorVersion)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-mod=mod")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cannot install code-generator %s: %v\n%s", codeGeneratorVersion, err, out)
	}
	t.Logf("installed code-generator %s into %s in %s", codeGeneratorVersion, bin, time.Since(start).Round(time.Second))
	return bin
}

// runCodeGenerator runs the four tools in dir on the tree's client versions, writing below
// outDir as the packages below outPkg, laid out as apigen lays out its clients;
// applyconfiguration-gen gets the OpenAPI definitions apigen builds, as a v2 document.
func runCodeGenerator(t *testing.T, bin, dir, outDir, outPkg string, tree *clientlayout.Tree) {
	t.Helper()
	header := filepath.Join(t.TempDir(), "boilerplate.go.txt")
	writeFile(t, header, []byte("// Code generated for TestClientsMatchCodeGenerator.\n"))
	schema := filepath.Join(t.TempDir(), "openapi.json")
	writeFile(t, schema, swagger(t, tree))
	var pkgs []string
	for _, gv := range tree.GroupVersions {
		pkgs = append(pkgs, gv.Version.Package.Path)
	}
	common := []string{"--go-header-file", header}
	runs := [][]string{
		append([]string{"applyconfiguration-gen", "--output-dir", filepath.Join(outDir, "applyconfiguration"),
			"--output-pkg", outPkg + "/applyconfiguration", "--openapi-schema", schema}, pkgs...),
		{"client-gen", "--output-dir", filepath.Join(outDir, "clientset"), "--output-pkg", outPkg + "/clientset",
			"--clientset-name", "versioned", "--apply-configuration-package", outPkg + "/applyconfiguration",
			"--input-base", "", "--input", strings.Join(pkgs, ",")},
		append([]string{"lister-gen", "--output-dir", filepath.Join(outDir, "listers"), "--output-pkg", outPkg + "/listers"}, pkgs...),
		append([]string{"informer-gen", "--output-dir", filepath.Join(outDir, "informers"), "--output-pkg", outPkg + "/informers",
			"--versioned-clientset-package", outPkg + "/clientset/versioned", "--listers-package", outPkg + "/listers"}, pkgs...),
	}
	for _, r := range runs {
		cmd := exec.Command(filepath.Join(bin, r[0]), append(r[1:], common...)...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(r, " "), err, b)
		}
	}
}

// swagger returns an OpenAPI v2 document whose definitions are those of the tree's client
// kinds and everything they reach.
func swagger(t *testing.T, tree *clientlayout.Tree) []byte {
	t.Helper()
	var roots []*model.Type
	for _, gv := range tree.GroupVersions {
		for _, k := range gv.Kinds {
			roots = append(roots, k.Type)
		}
	}
	defs, err := openapi.Definitions(roots)
	if err != nil {
		t.Fatal(err)
	}
	doc := spec.Swagger{SwaggerProps: spec.SwaggerProps{Swagger: "2.0", Info: &spec.Info{InfoProps: spec.InfoProps{Title: "corpus", Version: "v0"}},
		Paths: &spec.Paths{Paths: map[string]spec.PathItem{}}, Definitions: defs}}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// exportedAPI adds the exported API of pkg to out: one entry per exported identifier
// ("<pkg>.<Name>"; "<pkg>.<Type>.<Method>" for the methods of a type or an interface;
// "<pkg>.<Type>.<Field>" for struct fields) with its kind and type, parameter names left out
// and package paths in full, prefix replaced by "<tree>".
func exportedAPI(out map[string]string, pkg *types.Package, prefix string) {
	norm := func(s string) string { return strings.ReplaceAll(s, prefix, "<tree>") }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		key := norm(pkg.Path() + "." + name)
		switch o := obj.(type) {
		case *types.TypeName:
			describeType(out, key, o, norm)
		case *types.Func:
			out[key] = norm("func " + typeString(o.Type()))
		case *types.Var:
			out[key] = norm("var " + typeString(o.Type()))
		case *types.Const:
			out[key] = norm("const " + typeString(o.Type()))
		}
	}
}

// typeString renders t with signatures stripped of parameter and result names, which are no
// part of an API a caller compiles against.
func typeString(t types.Type) string {
	sig, ok := t.(*types.Signature)
	if !ok {
		return types.TypeString(t, nil)
	}
	unnamed := func(tuple *types.Tuple) *types.Tuple {
		vars := make([]*types.Var, tuple.Len())
		for i := range vars {
			vars[i] = types.NewParam(0, nil, "", tuple.At(i).Type())
		}
		return types.NewTuple(vars...)
	}
	return types.TypeString(types.NewSignatureType(nil, nil, nil, unnamed(sig.Params()), unnamed(sig.Results()), sig.Variadic()), nil)
}

// describeType adds a type, its exported methods (of *T, promoted ones included, or of the
// interface) and its exported struct fields to out.
func describeType(out map[string]string, key string, o *types.TypeName, norm func(string) string) {
	kind := "type"
	if o.IsAlias() {
		kind = "alias"
	}
	under := o.Type().Underlying()
	switch u := under.(type) {
	case *types.Interface:
		out[key] = kind + " interface"
		for i := range u.NumMethods() {
			if m := u.Method(i); m.Exported() {
				out[key+"."+m.Name()] = norm("method " + typeString(m.Type()))
			}
		}
		return
	case *types.Struct:
		out[key] = kind + " struct"
		for i := range u.NumFields() {
			if f := u.Field(i); f.Exported() {
				out[key+"."+f.Name()] = norm("field " + typeString(f.Type()))
			}
		}
	default:
		out[key] = norm(kind + " " + typeString(under))
	}
	ms := types.NewMethodSet(types.NewPointer(o.Type()))
	for i := range ms.Len() {
		if m := ms.At(i).Obj(); m.Exported() {
			out[key+"."+m.Name()] = norm("method " + typeString(m.Type()))
		}
	}
}

// compareAPIs reports every identifier missing from got, extra in got, or different.
func compareAPIs(t *testing.T, want, got map[string]string) {
	t.Helper()
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var diffs bytes.Buffer
	for _, k := range sorted {
		w, inWant := want[k]
		g, inGot := got[k]
		switch {
		case !inGot:
			fmt.Fprintf(&diffs, "missing %s: %s\n", k, w)
		case !inWant:
			fmt.Fprintf(&diffs, "extra   %s: %s\n", k, g)
		case w != g:
			fmt.Fprintf(&diffs, "differs %s:\n  code-generator: %s\n  apigen:         %s\n", k, w, g)
		}
	}
	if diffs.Len() > 0 {
		t.Errorf("the exported API of apigen's clients differs from code-generator's:\n%s", diffs.String())
	}
	if len(want) == 0 {
		t.Error("code-generator wrote no exported identifiers: nothing was compared")
	}
}

// countPackages counts the distinct packages of an exported API.
func countPackages(api map[string]string) int {
	pkgs := map[string]bool{}
	for k := range api {
		if i := strings.LastIndex(k, "/"); i >= 0 {
			rest := k[i:]
			if j := strings.Index(rest, "."); j >= 0 {
				pkgs[k[:i+j]] = true
			}
		}
	}
	return len(pkgs)
}
