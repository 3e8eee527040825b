package validation

import (
	"path/filepath"
	"testing"

	"github.com/apigen-dev/apigen/generators/equality"
	"github.com/apigen-dev/apigen/generators/internal/golden"
)

// TestEqualityGolden keeps testdata/shop/v1/zz_generated.equality.go what generators/equality
// writes for the package (-update rewrites it): the validation golden calls its
// SemanticEqual_T functions to ratchet, and TestGoldenBehaves compiles both.
func TestEqualityGolden(t *testing.T) {
	files, err := equality.New().Generate(sharedTestdata(t, "shop"))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	path, _ := filepath.Abs(filepath.Join("testdata", "shop", "v1", equality.FileName))
	golden.CheckInPlace(t, files, path)
}
