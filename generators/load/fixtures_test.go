package load

import (
	"encoding/json"
	"fmt"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"

	"github.com/apigen-dev/apigen/generators/model"
)

// batched are the fixture directories below each parent directory that the tests load: all of
// a parent's are loaded together, in one go/packages load (one `go list` instead of one per
// fixture and test, each about a second of CPU), and each fixture's model is built from its
// own packages by buildAPI, the second half of Load. TestLoadBatchedIsLoad holds a batched
// model to Load's of the same fixture.
var batched = map[string][]string{
	fixtures: {"badinstall", "badmarker", "badpaths", "badrest", "basic", "clientsall", "codegenlayout", "convertible",
		"createonly", "defined", "dupversion", "fuzzer", "hubrefs", "jsontags", "lifecycle", "nohub", "nohubconflict",
		"order", "pluralconflict", "single", "syntax", "userstorage"},
	corpus: {"codegen", "kubebuilder"},
}

// batch is the go/packages load of one parent's fixtures, made once per test binary.
type batch struct {
	once sync.Once
	fset *token.FileSet
	pkgs []*packages.Package
	err  error
}

var batches = map[string]*batch{fixtures: {}, corpus: {}}

// loadFixture returns what Load(dir, "./...") returns, dir being a fixture of batched
// (filepath.Join(parent, name)): the first call for a parent loads all its fixtures at once,
// and each call builds a new model from dir's packages. A dir that is not batched fails t.
func loadFixture(t *testing.T, dir string) (*model.API, error) {
	t.Helper()
	parent, name := filepath.Dir(dir), filepath.Base(dir)
	b := batches[parent]
	if b == nil || !slices.Contains(batched[parent], name) {
		t.Fatalf("%s is not a batched fixture: add it to batched, or call Load", dir)
	}
	b.once.Do(func() {
		var patterns []string
		for _, n := range batched[parent] {
			patterns = append(patterns, "./"+n+"/...")
		}
		b.fset = token.NewFileSet()
		b.pkgs, b.err = loadPackages(parent, b.fset, patterns)
	})
	if b.err != nil {
		t.Fatalf("cannot load the fixtures below %s: %v", parent, b.err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []*packages.Package
	for _, pkg := range b.pkgs {
		if d := packageDir(pkg); d == abs || strings.HasPrefix(d, abs+string(filepath.Separator)) {
			pkgs = append(pkgs, pkg)
		}
	}
	if len(pkgs) == 0 {
		t.Fatalf("the load of the fixtures below %s has no package in %s", parent, dir)
	}
	return buildAPI(b.fset, pkgs)
}

// TestLoadBatchedIsLoad: a fixture's model built from the batched load is the one Load gives
// alone (the same diagnostics, packages, types and groups), so that the tests that read
// batched models test Load.
func TestLoadBatchedIsLoad(t *testing.T) {
	for _, dir := range []string{filepath.Join(fixtures, "nohub"), filepath.Join(fixtures, "syntax")} {
		want, wantErr := Load(dir, "./...")
		got, gotErr := loadFixture(t, dir)
		if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
			t.Errorf("%s: Load error\n%v\nbatched\n%v", dir, wantErr, gotErr)
		}
		if (want == nil) != (got == nil) {
			t.Fatalf("%s: Load API %v, batched %v", dir, want != nil, got != nil)
		}
		if want == nil {
			continue
		}
		if diff := cmp.Diff(summary(want), summary(got)); diff != "" {
			t.Errorf("%s: the batched model differs from Load's (-Load +batched):\n%s", dir, diff)
		}
	}
}

// summary is what TestLoadBatchedIsLoad compares of two models: every package with its
// imports, funcs and types (with fields), every type the model holds, and every group with
// its versions and kinds.
func summary(api *model.API) string {
	var b strings.Builder
	fmt.Fprintf(&b, "matched %d\n", api.Matched)
	for _, p := range api.Packages {
		fmt.Fprintf(&b, "package %s imports %v\n", p.Path, p.Imports)
		for _, f := range slices.Sorted(maps.Keys(p.Funcs)) {
			fmt.Fprintf(&b, "  func %s at %s\n", f, p.Funcs[f])
		}
		for _, typ := range p.Types {
			fmt.Fprintf(&b, "  type %s %v doc %q markers %s\n", typ.Name, typ.Kind, typ.Doc, asJSON(typ.Markers))
			for _, f := range typ.Fields {
				fmt.Fprintf(&b, "    field %s %s json %q markers %s\n", f.Name, f.Type, f.JSONName, asJSON(f.Markers))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(api.Types)) {
		fmt.Fprintf(&b, "type %s\n", name)
	}
	for _, g := range api.Groups {
		fmt.Fprintf(&b, "group %s hub %s storage %s install %s\n", g.Name, g.Hub.Path, g.StorageVersion.Name, g.InstallPath)
		for _, v := range g.Versions {
			for _, k := range v.Kinds {
				fmt.Fprintf(&b, "  kind %s/%s %s at %s\n", v.Name, k.Name, k.Plural, k.Pos)
			}
		}
	}
	return b.String()
}

// asJSON is v as JSON (markers hold pointers, which %v would print as addresses).
func asJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
