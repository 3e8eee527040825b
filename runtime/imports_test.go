package runtime

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strings"
	"testing"
)

// module is apigen's module path.
const module = "github.com/apigen-dev/apigen"

// forbidden lists import-path prefixes no runtime package may depend on, directly or not
// (DESIGN.md section 2): generated servers must not drag the generator in.
var forbidden = []string{
	path.Join(module, "generators"),
	path.Join(module, "example-api"),
	path.Join(module, "cmd"),
	"github.com/dave/jennifer",
	"k8s.io/gengo",
	"golang.org/x/tools/go/packages",
	"k8s.io/apiserver",
}

// allowed lists the packages under a forbidden prefix the runtime may use: k8s.io/apiserver's
// CEL function libraries and the leaf packages they import (DESIGN.md section 3: a library
// that is the reference for a semantics is used, its framework is not).
var allowed = map[string]bool{
	"k8s.io/apiserver/pkg/cel":                           true,
	"k8s.io/apiserver/pkg/cel/common":                    true, // how a custom resource's values bind to CEL
	"k8s.io/apiserver/pkg/cel/openapi":                   true, // common.Schema over a kube-openapi schema
	"k8s.io/apiserver/pkg/cel/library":                   true,
	"k8s.io/apiserver/pkg/cel/lazy":                      true,
	"k8s.io/apiserver/pkg/apis/cel":                      true,
	"k8s.io/apiserver/pkg/authorization/authorizer":      true,
	"k8s.io/apiserver/pkg/authentication/user":           true,
	"k8s.io/apiserver/pkg/authentication/serviceaccount": true,
}

// TestRuntimeImports checks the dependency closure of every runtime package, as Go's own
// go/build deps_test does for the standard library.
func TestRuntimeImports(t *testing.T) {
	checked := 0
	for _, pkg := range goList(t, "-deps", "-test", "-json=ImportPath,Deps", "github.com/apigen-dev/apigen/runtime/...") {
		if !strings.HasPrefix(pkg.ImportPath, "github.com/apigen-dev/apigen/runtime") {
			continue
		}
		checked++
		for _, dep := range pkg.Deps {
			if allowed[dep] {
				continue
			}
			for _, bad := range forbidden {
				if dep == bad || strings.HasPrefix(dep, bad+"/") {
					t.Errorf("%s depends on %s, which the runtime must not import", pkg.ImportPath, dep)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("go list returned no runtime packages")
	}
}

// layerArrows lists, per runtime package (or tree, with a trailing "/..."), the runtime
// packages it must not import directly: the request path (endpoints) and the serializers
// reach storage only through the Store and storage.Interface they are given, so that
// serialization and HTTP handling are told apart from etcd; the API types import no server.
var layerArrows = map[string][]string{
	"runtime/endpoints":      {"runtime/storage"},
	"runtime/serializer/...": {"runtime/storage", "runtime/endpoints", "runtime/registry"},
	"runtime/request":        {"runtime/storage", "runtime/endpoints", "runtime/registry"},
	// The API types (and structural schemas, a leaf they use) do not import the CRD server.
	"runtime/apis/...":              {"runtime/apiextensions"},
	"runtime/validation/structural": {"runtime/apiextensions", "runtime/apis"},
}

// TestRuntimeLayers checks layerArrows on the direct imports of the runtime's packages.
func TestRuntimeLayers(t *testing.T) {
	matched := map[string]bool{}
	for _, pkg := range goList(t, "-json=ImportPath,Imports", "github.com/apigen-dev/apigen/runtime/...") {
		rel := strings.TrimPrefix(pkg.ImportPath, module+"/")
		for from, banned := range layerArrows {
			if tree, ok := strings.CutSuffix(from, "/..."); !(rel == from || ok && (rel == tree || strings.HasPrefix(rel, tree+"/"))) {
				continue
			}
			matched[from] = true
			for _, imp := range pkg.Imports {
				for _, b := range banned {
					if bad := module + "/" + b; imp == bad || strings.HasPrefix(imp, bad+"/") {
						t.Errorf("%s imports %s: %s must not import %s", rel, imp, from, b)
					}
				}
			}
		}
	}
	for from := range layerArrows {
		if !matched[from] {
			t.Errorf("no runtime package matches %s: update layerArrows", from)
		}
	}
}

// TestDocListsEveryPackage keeps doc.go's map of the runtime true: every runtime package
// (API version and install packages, generated clients and test API types aside) is named
// in it.
func TestDocListsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "github.com/apigen-dev/apigen/runtime/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	skip := regexp.MustCompile(`/(v1|v1beta1|v1alpha1|install)$|^pkg/generated|^registry/testapi/`)
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/runtime")
		rel = strings.TrimPrefix(rel, "/")
		if rel == "" || skip.MatchString(rel) {
			continue
		}
		if !regexp.MustCompile(`[\s(,]` + regexp.QuoteMeta(rel) + `[\s:,;).]`).Match(doc) {
			t.Errorf("runtime/doc.go does not name runtime/%s: add it to its layer", rel)
		}
	}
}

// listedPackage is what the tests read of `go list -json`.
type listedPackage struct {
	ImportPath    string
	Imports, Deps []string
}

// goList runs `go list` with args (which must include -json) and decodes its packages.
func goList(t *testing.T, args ...string) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var pkg listedPackage
		if err := dec.Decode(&pkg); err == io.EOF {
			return pkgs
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, pkg)
	}
}
