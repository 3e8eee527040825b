package equality

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/model"
)

// loadShapes loads testdata/shapes/v1 with the real loader.
func loadShapes(t *testing.T) *model.API {
	return golden.Load(t, "./generators/equality/testdata/shapes/v1")
}

// sharedShapes is loadShapes' model, loaded once for the tests that only read it
// (golden.LoadShared).
func sharedShapes(t *testing.T) *model.API {
	return golden.LoadShared(t, "./generators/equality/testdata/shapes/v1")
}

// TestGenerateShapes compares the functions generated for testdata/shapes/v1 with the
// committed zz_generated.equality.go there (-update rewrites it), and checks how each shape
// is compared; TestShapesBehave runs them against equality.Semantic.DeepEqual.
func TestGenerateShapes(t *testing.T) {
	files, err := New().Generate(sharedShapes(t))
	if err != nil {
		t.Fatal(err)
	}
	path, _ := filepath.Abs(filepath.Join("testdata", "shapes", "v1", FileName))
	src := golden.CheckInPlace(t, files, path)
	for _, name := range []string{"Arrays", "Basics", "Externals", "Grid", "Hidden", "Inner", "Interfaces", "Maps", "Names", "Node", "Pointers", "Settings", "Shape", "Slices"} {
		if !strings.Contains(src, "func SemanticEqual_"+name+"(a, b *"+name+") bool {") {
			t.Errorf("no SemanticEqual_%s", name)
		}
	}
	if strings.Contains(src, "func SemanticEqual_Engine(") {
		t.Errorf("a named basic type got a function; == compares it")
	}
	for _, want := range []string{
		"return equality.Semantic.DeepEqual(a, b)",                                                 // Hidden: unexported field
		"if !equality.Semantic.DeepEqual(&a.ObjectMeta, &b.ObjectMeta) {",                          // external struct, by pointer
		"if a.Quantity.Cmp(b.Quantity) != 0 {",                                                     // resource.Quantity
		"if a.Time.UTC() != b.Time.UTC() {",                                                        // metav1.Time
		"if a.MicroTime.UTC() != b.MicroTime.UTC() {",                                              // metav1.MicroTime
		"if a.IntOrString != b.IntOrString {",                                                      // intstr.IntOrString
		"if a.Status != b.Status {",                                                                // an external named string
		"if !equality.Semantic.DeepEqual(a.Selector, b.Selector) {",                                // pointer to an external struct
		"if !equality.Semantic.DeepEqual(&a.Any, &b.Any) {",                                        // interface
		"if !SemanticEqual_Inner(a.Inner, b.Inner) {",                                              // pointer to a local struct
		"if !SemanticEqual_Inner(&a.Inners[i], &b.Inners[i]) {",                                    // slice of local structs
		"if !SemanticEqual_Inner(&va, &vb) {",                                                      // map of local structs
		"if len(a.Strings) != 0 && &a.Strings[0] != &b.Strings[0] {",                               // shared backing array
		"reflect.ValueOf(a.Strings).UnsafePointer() != reflect.ValueOf(b.Strings).UnsafePointer()", // same map
		"if (a.Float64 == nil) != (b.Float64 == nil) {",                                            // pointer to basic
		"if a.Tags != nil && a.Tags != b.Tags {",                                                   // pointer to slice: identity
		"if a.Float64 != nil {",                                                                    // pointer to float: NaN at one address differs
	} {
		if !strings.Contains(src, want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
}

// TestShapesBehave compiles the golden file with testdata/shapes/v1/types.go and runs the
// package's own test, which compares every generated function with
// equality.Semantic.DeepEqual on random values, their mutations and the edge cases.
func TestShapesBehave(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on testdata/shapes/v1")
	}
	cmd := exec.Command("go", "test", "-count=1", "./testdata/shapes/v1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test ./testdata/shapes/v1: %v\n%s", err, out)
	}
}

// TestGenerateSkipsHandWritten checks that a SemanticEqual_T the package declares is not
// generated again, and that a package without structs or named collections gets no file.
func TestGenerateSkipsHandWritten(t *testing.T) {
	api := loadShapes(t)
	pkg := api.Packages[0]
	pkg.Funcs = map[string]model.Position{"SemanticEqual_Inner": {}}
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range files {
		if strings.Contains(string(src), "func SemanticEqual_Inner(") {
			t.Errorf("hand-written SemanticEqual_Inner generated again")
		}
		if !strings.Contains(string(src), "SemanticEqual_Inner(a.Inner, b.Inner)") {
			t.Errorf("hand-written SemanticEqual_Inner not called")
		}
	}
	var kept []*model.Type
	for _, ty := range pkg.Types {
		if ty.Kind == model.Basic {
			kept = append(kept, ty)
		}
	}
	pkg.Types = kept
	files, err = New().Generate(api)
	if err != nil || len(files) != 0 {
		t.Errorf("Generate on a package of named basic types = %d files, %v; want none", len(files), err)
	}
}
