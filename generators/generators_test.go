package generators

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
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
