package generators_test

import (
	"encoding/json"
	"io"
	"os/exec"
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
