package roundtrip

import (
	"bytes"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// version returns a version of the group at path with the named kinds.
func version(path, name string, kinds ...*model.Kind) *model.Version {
	return &model.Version{Name: name, Package: &model.Package{Path: path + "/" + name, Dir: "/src/" + path + "/" + name, Name: name}, Kinds: kinds}
}

// group returns a group with the given versions, its install package below hub.
func group(name string, hub *model.Package, isVersion bool, versions ...*model.Version) *model.Group {
	return &model.Group{Name: name, Hub: hub, HubIsVersion: isVersion, Versions: versions, StorageVersion: versions[0],
		InstallPath: hub.Path + "/install", InstallDir: filepath.Join(hub.Dir, "install")}
}

// generate returns the test file Generate writes for g, failing t when it is not exactly one
// gofmt-clean, generated Go file of package install_test.
func generate(t *testing.T, g *model.Group) string {
	t.Helper()
	files, err := New().Generate(&model.API{Groups: []*model.Group{g}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(g.InstallDir, File)
	b, ok := files[path]
	if !ok || len(files) != 1 {
		t.Fatalf("Generate wrote %d files, want only %s", len(files), path)
	}
	again, _ := New().Generate(&model.API{Groups: []*model.Group{g}})
	if !bytes.Equal(b, again[path]) {
		t.Error("two runs differ")
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, b, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil || f.Name.Name != "install_test" || !strings.HasPrefix(string(b), emit.Header+"\n") {
		t.Fatalf("the file is not a generated file of package install_test (%v):\n%s", err, b)
	}
	return string(b)
}

// wantLines fails t for each of want that is not a line of src (tabs trimmed).
func wantLines(t *testing.T, src string, want ...string) {
	t.Helper()
	lines := map[string]bool{}
	for _, l := range strings.Split(src, "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, w := range want {
		if !lines[w] {
			t.Errorf("the test has no line %q:\n%s", w, src)
		}
	}
}

// TestInternalHub: in a group with an internal package every kind goes through
// runtime.APIVersionInternal; a version that does not serve a kind is left out unless it is
// the kind's storage version; the fuzzer package's Funcs is passed.
func TestInternalHub(t *testing.T) {
	const path = "example.com/shop/apis/db"
	hub := &model.Package{Path: path, Dir: "/src/" + path, Name: "db"}
	v1 := version(path, "v1", &model.Kind{Name: "Database", Storage: true}, &model.Kind{Name: "Backup", Unserved: true, Storage: true})
	v1alpha1 := version(path, "v1alpha1", &model.Kind{Name: "Database"}, &model.Kind{Name: "Backup", Unserved: true})
	g := group("db.example.com", hub, false, v1, v1alpha1)
	g.Fuzzer = &model.Package{Path: path + "/fuzzer", Name: "dbfuzzer"}
	src := generate(t, g)
	wantLines(t, src,
		`dbfuzzer "example.com/shop/apis/db/fuzzer"`,
		`install "example.com/shop/apis/db/install"`,
		"func TestRoundTrip(t *testing.T) {",
		`Name:    "db.example.com",`,
		"Install: install.Install,",
		`{Name: "Backup", Hub: runtime.APIVersionInternal, Storage: "v1", Versions: []string{"v1"}},`,
		`{Name: "Database", Hub: runtime.APIVersionInternal, Storage: "v1", Versions: []string{"v1", "v1alpha1"}},`,
		"FuzzerFuncs:   dbfuzzer.Funcs,",
		`FuzzerPackage: "example.com/shop/apis/db/fuzzer",`,
	)
}

// TestHubIsVersion: in a group without an internal package, each kind goes through its hub
// version (the version whose type has Hub, else its storage version), and without a fuzzer
// package the test names where Funcs would go.
func TestHubIsVersion(t *testing.T) {
	const path = "example.com/crafts/apis/crafts"
	boatHub := &model.Type{Methods: map[string]bool{"Hub": true}}
	v1 := version(path, "v1", &model.Kind{Name: "Boat", Storage: true}, &model.Kind{Name: "Dock"})
	v1beta1 := version(path, "v1beta1", &model.Kind{Name: "Boat", Type: boatHub}, &model.Kind{Name: "Dock", Storage: true})
	g := group("crafts.example.com", v1.Package, true, v1, v1beta1)
	src := generate(t, g)
	wantLines(t, src,
		`{Name: "Boat", Hub: "v1beta1", Storage: "v1", Versions: []string{"v1", "v1beta1"}},`,
		`{Name: "Dock", Hub: "v1beta1", Storage: "v1beta1", Versions: []string{"v1", "v1beta1"}},`,
		`FuzzerPackage: "example.com/crafts/apis/crafts/v1/fuzzer",`,
	)
	if strings.Contains(src, "FuzzerFuncs:") {
		t.Errorf("the test passes FuzzerFuncs without a fuzzer package:\n%s", src)
	}
}

// TestNoKinds: a group without kinds gets no test, which would have nothing to round-trip.
func TestNoKinds(t *testing.T) {
	hub := &model.Package{Path: "example.com/x/apis/x", Dir: "/src/x", Name: "x"}
	files, err := New().Generate(&model.API{Groups: []*model.Group{group("x.example.com", hub, false, version("example.com/x/apis/x", "v1"))}})
	if err != nil || len(files) != 0 {
		t.Errorf("Generate = %d files, %v; want none", len(files), err)
	}
}
