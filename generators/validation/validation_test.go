package validation

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/model"
)

// loadTestdata loads testdata/<name>/v1 from source, as `apigen generate` would.
func loadTestdata(t *testing.T, name string) *model.API {
	return golden.Load(t, "./generators/validation/testdata/"+name+"/v1")
}

// sharedTestdata is loadTestdata's model of testdata/<name>/v1, loaded once for the tests
// that only read it (golden.LoadShared).
func sharedTestdata(t *testing.T, name string) *model.API {
	return golden.LoadShared(t, "./generators/validation/testdata/"+name+"/v1")
}

func TestGenerateGolden(t *testing.T) {
	files, err := New().Generate(sharedTestdata(t, "shop"))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	path, _ := filepath.Abs(filepath.Join("testdata", "shop", "v1", FileName))
	golden.CheckInPlace(t, files, path)
}

// TestGenerateDeterministic generates from the shared model, then from fresh loads of the
// same package (three; one under -short, a load being most of the time: make test makes all
// three), and compares.
func TestGenerateDeterministic(t *testing.T) {
	api := sharedTestdata(t, "shop")
	first, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	runs := 3
	if testing.Short() {
		runs = 1
	}
	for i := 0; i < runs; i++ {
		again, err := New().Generate(loadTestdata(t, "shop"))
		if err != nil {
			t.Fatal(err)
		}
		for path, b := range first {
			if !bytes.Equal(b, again[path]) {
				t.Fatalf("%s differs between two runs", path)
			}
		}
	}
}

// TestGoldenBehaves compiles the golden file with testdata/shop/v1's hand-written types and
// runs that package's test, which validates objects through a runtime.Scheme.
func TestGoldenBehaves(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on testdata/shop/v1")
	}
	cmd := exec.Command("go", "test", "-count=1", "./testdata/shop/v1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test ./testdata/shop/v1: %v\n%s", err, out)
	}
}

// TestDiagnostics generates testdata/bad/v1, whose every field has a bad marker, and checks
// that all problems are reported together, each at its file:line.
func TestDiagnostics(t *testing.T) {
	files, err := New().Generate(loadTestdata(t, "bad"))
	if err == nil {
		t.Fatalf("Generate succeeded with %d files, want diagnostics", len(files))
	}
	ds, ok := err.(model.Diagnostics)
	if !ok {
		t.Fatalf("Generate returned %T, want model.Diagnostics: %v", err, err)
	}
	want := []struct{ line, text string }{
		{"types.go:16", "+kubebuilder:validation:XValidation on GadgetSpec.Name: cannot compile rule \"self.size() >\": ERROR: <input>:1:14: Syntax error"},
		{"types.go:18", "+kubebuilder:validation:XValidation on GadgetSpec.Size: cannot compile rule \"self + 1\": the expression must evaluate to bool, not int"},
		{"types.go:22", "default 12 of GadgetSpec.Replicas violates +kubebuilder:validation:Maximum=9"},
		{"types.go:25", "default \"c\" of GadgetSpec.Mode violates +kubebuilder:validation:Enum=a;b"},
		{"types.go:29", "default \"ABCD\" of GadgetSpec.Code violates +kubebuilder:validation:MaxLength=3"},
		{"types.go:29", "default \"ABCD\" of GadgetSpec.Code violates +kubebuilder:validation:Pattern=`^[a-z]+$`"},
		{"types.go:31", "+kubebuilder:validation:Pattern of GadgetSpec.Broken is not a valid regular expression: error parsing regexp: missing closing ]"},
		{"types.go:33", "+kubebuilder:validation:Enum value \"a\" of GadgetSpec.Level is a string, but the field is not"},
		{"types.go:36", "+listMapKey=id on GadgetSpec.Items names no field of Item"},
		{"types.go:38", "+kubebuilder:validation:MultipleOf on GadgetSpec.Step must be positive, not 0"},
		{"types.go:42", "default \"\" of GadgetSpec.Label violates +kubebuilder:validation:MinLength=2"},
	}
	msg := err.Error()
	for _, w := range want {
		found := false
		for _, d := range ds {
			if strings.HasSuffix(d.Pos.File, filepath.Join("bad", "v1", "types.go")) && strings.HasSuffix(w.line, ":"+strconv.Itoa(d.Pos.Line)) &&
				strings.Contains(d.Message, w.text) {
				found = true
			}
		}
		if !found {
			t.Errorf("no diagnostic at %s containing %q; got:\n%s", w.line, w.text, msg)
		}
	}
	if len(ds) != len(want) {
		t.Errorf("got %d diagnostics, want %d:\n%s", len(ds), len(want), msg)
	}
}
