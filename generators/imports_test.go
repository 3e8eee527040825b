package generators_test

import (
	"cmp"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runtimeImports lists, per generators package, the runtime packages it may import: the
// validation generator compiles +kubebuilder:validation:XValidation rules at generate time
// with the CEL environment the server evaluates them in, so that a rule that cannot compile
// is an error at file:line instead of at the first request. Everything else a generator knows
// of the runtime it knows as import paths it writes into generated code.
var runtimeImports = map[string][]string{
	"github.com/apigen-dev/apigen/generators/validation": {
		"github.com/apigen-dev/apigen/runtime/validation",
		"github.com/apigen-dev/apigen/runtime/validation/cel",
	},
}

// TestGeneratorImports checks the arrows of DESIGN.md section 2 on the generators' side, as
// runtime/imports_test.go does on the runtime's: only generators/load touches go/packages
// (every generator sees only the model), no generators package depends on cmd/ or
// example-api/, and generators reach the runtime only where runtimeImports says.
func TestGeneratorImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps=false", "-json=ImportPath,Imports,Deps", "github.com/apigen-dev/apigen/generators/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var pkg struct {
			ImportPath    string
			Imports, Deps []string
		}
		if err := dec.Decode(&pkg); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, "golang.org/x/tools/go/packages") && pkg.ImportPath != "github.com/apigen-dev/apigen/generators/load" {
				t.Errorf("%s imports %s: only generators/load loads packages; generators read the model", pkg.ImportPath, imp)
			}
			if strings.HasPrefix(imp, "github.com/apigen-dev/apigen/runtime") && !slices.Contains(runtimeImports[pkg.ImportPath], imp) {
				t.Errorf("%s imports %s, which runtimeImports does not allow", pkg.ImportPath, imp)
			}
		}
		for _, dep := range pkg.Deps {
			if strings.HasPrefix(dep, "github.com/apigen-dev/apigen/cmd") || strings.HasPrefix(dep, "github.com/apigen-dev/apigen/example-api") {
				t.Errorf("%s depends on %s: the arrows run cmd -> generators, never back, and generators know no API", pkg.ImportPath, dep)
			}
		}
	}
	if checked < 15 {
		t.Fatalf("checked %d generators packages; go list found too few", checked)
	}
}

// TestUpdateFlagOnlyInGolden keeps golden-file handling in one place: the -update flag is
// declared by generators/internal/golden alone (a second declaration panics in a test binary
// that imports both), and tests rewrite their files through its helpers.
func TestUpdateFlagOnlyInGolden(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "testdata" {
			return cmp.Or(err, filepath.SkipDir)
		}
		if !strings.HasSuffix(path, ".go") || filepath.Dir(path) == filepath.Join("internal", "golden") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(src), "flag.Bool("+`"update"`) { // split, not to match this file
			t.Errorf("%s declares -update: use generators/internal/golden (Check, CheckInPlace, CheckCommitted, Updating)", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
