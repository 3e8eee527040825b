package runtime

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// helpersLayer is the name of doc.go's last list: the test helpers, which may import any
// runtime package and which only tests and other helpers may import.
const helpersLayer = "Test helpers"

// layerList is runtime/doc.go's list of the runtime's packages by layer, top to bottom.
type layerList struct {
	// names are the layers' names (their headings without the colon or a parenthesis), top
	// first.
	names []string
	// entries maps a package, relative to runtime/ ("registry", "apis/..." for a tree), to
	// its layer's index in names.
	entries map[string]int
}

var (
	layerHeading = regexp.MustCompile(`^// (\S.*):$`)
	layerBullet  = regexp.MustCompile(`^//   - (.*)$`)
	layerMore    = regexp.MustCompile(`^//     (\S.*)$`)
	layerPackage = regexp.MustCompile(`^[a-z0-9]+(/[a-z0-9]+)*(/\.\.\.)?$`)
)

// parseLayers reads the layer list of doc.go's package comment: a heading line ("// Objects:")
// followed by bullets ("//   - registry, rest: what they are", continued by lines indented
// five spaces), each naming its packages before the first colon. The list ends at the first
// other line after it began.
func parseLayers(doc string) (*layerList, error) {
	l := &layerList{entries: map[string]int{}}
	var bullet string // the bullet being read, continuation lines joined
	flush := func() error {
		if bullet == "" {
			return nil
		}
		names, _, ok := strings.Cut(bullet, ":")
		if !ok {
			return fmt.Errorf("doc.go bullet %q names no packages before a colon", bullet)
		}
		for _, n := range strings.Split(names, ",") {
			n = strings.TrimSpace(n)
			if !layerPackage.MatchString(n) {
				return fmt.Errorf("doc.go bullet %q: %q is not a package path", bullet, n)
			}
			if prev, dup := l.entries[n]; dup {
				return fmt.Errorf("doc.go lists %s twice (%s and %s)", n, l.names[prev], l.names[len(l.names)-1])
			}
			l.entries[n] = len(l.names) - 1
		}
		bullet = ""
		return nil
	}
	lines := strings.Split(doc, "\n")
	for i, line := range lines {
		switch m := layerBullet.FindStringSubmatch(line); {
		case m != nil && len(l.names) > 0:
			if err := flush(); err != nil {
				return nil, err
			}
			bullet = m[1]
		case layerMore.MatchString(line) && bullet != "":
			bullet += " " + strings.TrimPrefix(line, "//     ")
		case layerHeading.MatchString(line) && i+1 < len(lines) && layerBullet.MatchString(lines[i+1]):
			if err := flush(); err != nil {
				return nil, err
			}
			name, _, _ := strings.Cut(layerHeading.FindStringSubmatch(line)[1], " (")
			l.names = append(l.names, name)
		case line == "//" || len(l.names) == 0:
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			return l, flush()
		}
	}
	return l, flush()
}

// layerOf returns the index of rel's layer ("" is the root package, in none) and the entry that
// placed it there: rel itself, or the nearest tree ("apis/...") above it.
func (l *layerList) layerOf(rel string) (int, string, bool) {
	if i, ok := l.entries[rel]; ok {
		return i, rel, true
	}
	for dir := rel; dir != "." && dir != ""; dir = path.Dir(dir) {
		if i, ok := l.entries[dir+"/..."]; ok {
			return i, dir + "/...", true
		}
	}
	return 0, "", false
}

// TestRuntimeLayers holds every runtime package to runtime/doc.go's layer list (the list is
// the law, read from doc.go): each package is in a layer, each entry names a package, and no
// non-test file imports a runtime package from a higher layer. Test helpers may import
// anything; only helpers (and tests, whose imports are not checked) import them.
func TestRuntimeLayers(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	layers, err := parseLayers(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	helpers := slices.Index(layers.names, helpersLayer)
	if len(layers.names) < 4 || helpers < 0 {
		t.Fatalf("runtime/doc.go's layer list reads as %q: want the layers, then %q", layers.names, helpersLayer)
	}
	pkgs := goList(t, "-json=ImportPath,Dir,GoFiles,Imports", module+"/runtime/...")
	used := map[string]bool{}
	rels := map[string]bool{}
	upward := 0
	for _, pkg := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg.ImportPath, module+"/runtime"), "/")
		rels[rel] = true
		if rel == "" {
			continue // this package: the documentation and these tests
		}
		from, entry, ok := layers.layerOf(rel)
		if !ok {
			t.Errorf("runtime/%s is in no layer of runtime/doc.go: add it to the layer of what it does", rel)
			continue
		}
		used[entry] = true
		for _, imp := range pkg.Imports {
			impRel, ok := strings.CutPrefix(imp, module+"/runtime/")
			if !ok {
				continue
			}
			to, _, ok := layers.layerOf(impRel)
			switch {
			case !ok || from == helpers:
				// A package in no layer is reported on its own; helpers import anything.
			case to == helpers:
				upward++
				t.Errorf("runtime/%s (%s) imports the test helper runtime/%s in %s", rel, layers.names[from], impRel, importers(t, pkg, imp))
			case to < from:
				upward++
				t.Errorf("runtime/%s (%s) imports runtime/%s (%s), a higher layer, in %s", rel, layers.names[from], impRel, layers.names[to], importers(t, pkg, imp))
			}
		}
	}
	for entry := range layers.entries {
		if tree, ok := strings.CutSuffix(entry, "/..."); ok && rels[tree] {
			continue
		} else if !used[entry] && !rels[entry] {
			t.Errorf("runtime/doc.go lists runtime/%s, which is no package: remove it", entry)
		}
	}
	if upward > 0 {
		t.Errorf("%d imports run up between the layers of runtime/doc.go", upward)
	}
}

// importers returns the non-test files of pkg that import imp ("runtime/registry/store.go").
func importers(t *testing.T, pkg listedPackage, imp string) string {
	var files []string
	for _, f := range pkg.GoFiles {
		name := filepath.Join(pkg.Dir, f)
		parsed, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range parsed.Imports {
			if p, _ := strconv.Unquote(spec.Path.Value); p == imp {
				files = append(files, path.Join(strings.TrimPrefix(pkg.ImportPath, module+"/"), f))
			}
		}
	}
	return strings.Join(files, ", ")
}

// TestParseLayers checks the reading of doc.go's list on a small one.
func TestParseLayers(t *testing.T) {
	t.Parallel()
	l, err := parseLayers(`// Package runtime is ... by layer:
//
// Top (why):
//   - app, certs: the process;
//   - gcpacer: pacing,
//     over two lines.
//
// Bottom:
//   - apis/..., storage/etcd3: types
//
// The runtime never imports ...
// Other: not a layer
//   - x: not a package of the list
package runtime
`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"app": 0, "certs": 0, "gcpacer": 0, "apis/...": 1, "storage/etcd3": 1}
	if !slices.Equal(l.names, []string{"Top", "Bottom"}) || fmt.Sprint(l.entries) != fmt.Sprint(want) {
		t.Errorf("parseLayers = %q %v, want [Top Bottom] %v", l.names, l.entries, want)
	}
	if i, entry, ok := l.layerOf("apis/core/v1"); !ok || i != 1 || entry != "apis/..." {
		t.Errorf("layerOf(apis/core/v1) = %d %q %v, want 1 apis/... true", i, entry, ok)
	}
	if _, _, ok := l.layerOf("registry"); ok {
		t.Error("layerOf(registry) found a layer in a list without it")
	}
	if _, err := parseLayers("// A:\n//   - Registry: upper case\n"); err == nil {
		t.Error("parseLayers accepted a bullet naming no package")
	}
}
