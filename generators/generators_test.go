package generators

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/internal/testinputs"
)

func TestAllNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range All() {
		if seen[g.Name()] {
			t.Errorf("two generators are named %q", g.Name())
		}
		seen[g.Name()] = true
	}
}

// TestAllBuildExample is the generators' acceptance test: it loads the example API, runs
// every generator and builds and vets the example's API packages with the generated files
// laid over the tree (go build -overlay), leaving the tree untouched.
func TestAllBuildExample(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and builds example-api")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := []string{"./example-api/apis/db", "./example-api/apis/db/v1", "./example-api/apis/db/v1alpha1"}
	testinputs.Declare(t, pkgs...)
	api, err := load.Load(root, pkgs...)
	if ds, ok := err.(model.Diagnostics); err != nil && (!ok || ds.HasErrors()) {
		t.Fatalf("cannot load example-api: %v", err)
	}
	dir := t.TempDir()
	replace := map[string]string{}
	for _, g := range All() {
		files, err := g.Generate(api)
		if err != nil {
			t.Fatalf("generator %s: %v", g.Name(), err)
		}
		for path, b := range files {
			dst := filepath.Join(dir, g.Name()+"-"+filepath.Base(filepath.Dir(path))+"-"+filepath.Base(path))
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
			replace[path] = dst
		}
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	overlayPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayPath, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"build", "vet"} {
		cmd := exec.Command("go", append([]string{verb, "-overlay", overlayPath}, pkgs...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s of the generated example: %v\n%s", verb, err, out)
		}
	}
}

// TestHandWrittenInstallClashes runs every generator on a group whose hand-written install.go
// declares an Install NewAPIGroupInfo cannot call (a load error) and a NewAPIGroupInfo of its
// own: the clash with the generated one is an error at the hand-written declaration, as for
// the API packages, not a compile error later.
func TestHandWrittenInstallClashes(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pass, err := Run(root, []string{"./generators/testdata/load/badinstall/..."}, All())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("testdata", "load", "badinstall", "apis", "wardle", "install", "install.go")
	var got []string
	for _, d := range pass.Diagnostics {
		if !d.Warning {
			got = append(got, d.String())
		}
	}
	want := []string{
		"func Install(scheme *runtime.Scheme) error: the generated NewAPIGroupInfo calls the install package's Install",
		"NewAPIGroupInfo is also declared by the generated zz_generated.install.go (install generator); rename this declaration",
	}
	if len(got) != len(want) {
		t.Fatalf("errors = %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) || !strings.Contains(got[i], file) {
			t.Errorf("error %d = %q, want %q at %s", i, got[i], w, file)
		}
	}
}
