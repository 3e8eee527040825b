package validation

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/equality"
)

// TestEqualityGolden keeps testdata/shop/v1/zz_generated.equality.go what generators/equality
// writes for the package (-update rewrites it): the validation golden calls its
// SemanticEqual_T functions to ratchet, and TestGoldenBehaves compiles both.
func TestEqualityGolden(t *testing.T) {
	files, err := equality.New().Generate(loadTestdata(t, "shop"))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	path, _ := filepath.Abs(filepath.Join("testdata", "shop", "v1", equality.FileName))
	if len(files) != 1 || files[path] == nil {
		t.Fatalf("Generate returned %d files, want only %s", len(files), path)
	}
	if *update {
		if err := os.WriteFile(path, files[path], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read golden file (run go test -update): %v", err)
	}
	if diff := cmp.Diff(string(want), string(files[path])); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
