package jsoncodec

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/model"
)

// loadShapes loads testdata/shapes/v1 with the real loader.
func loadShapes(t *testing.T) *model.API {
	return golden.Load(t, "./generators/jsoncodec/testdata/shapes/v1")
}

// sharedShapes is loadShapes' model, loaded once for the tests that only read it
// (golden.LoadShared).
func sharedShapes(t *testing.T) *model.API {
	return golden.LoadShared(t, "./generators/jsoncodec/testdata/shapes/v1")
}

// TestGenerateShapes compares the codecs of testdata/shapes/v1 with the committed
// zz_generated.json.go there (-update rewrites it), and checks the choices the file's
// behaviour test cannot see: which structs get codecs, and how each field shape is written.
func TestGenerateShapes(t *testing.T) {
	files, err := New().Generate(sharedShapes(t))
	if err != nil {
		t.Fatal(err)
	}
	path, _ := filepath.Abs(filepath.Join("testdata", "shapes", "v1", FileName))
	src := golden.CheckInPlace(t, files, path)
	for _, name := range []string{"Basics", "Composite", "Empty", "Fallback", "HoldsPtrMarshal", "Inline", "Methods", "Shape", "ShapeList"} {
		if !strings.Contains(src, "func jsonEncode"+name+"(") || !strings.Contains(src, "jsoncodec.Register(jsonEncode"+name+", jsonDecode"+name+")") {
			t.Errorf("no registered codec for %s", name)
		}
	}
	for _, name := range []string{"Stringly", "EmbedsPtr", "Collides", "Hidden", "ZeroStruct", "Own", "Stamp", "NotInline", "PtrMarshal"} {
		if strings.Contains(src, "func jsonEncode"+name+"(") {
			t.Errorf("%s, which encoding/json treats in ways the generator does not copy, has a codec", name)
		}
	}
	for _, want := range []string{
		`w.Raw(",\"a\\u003cb\\u0026c\\u003e\":")`,        // keys HTML-escaped at generation time
		`w.Raw(",\"NoName\":")`,                          // a tag without a name: the Go name
		"if in.Float32 != 0 {",                           // omitempty drops -0 too (reflect.Value.IsZero)
		"if !in.ZeroTime.IsZero() {",                     // omitzero through IsZero
		"if in.ZeroPtr != nil && !in.ZeroPtr.IsZero() {", // ... on a pointer
		"w.Marshaler(&in.Ptr)",                           // pointer-receiver MarshalJSON, addressable
		"w.Value(val0)",                                  // ... not in a map value
		"w.Value(&in.IntKeys)",                           // int keys: reflection
		"w.Value(&in.Bytes)",                             // base64
		"r.Unmarshaler(&out.Time)",
		"apimachineryjson.EncodeObjectMeta(w, &in.ObjectMeta)",
		"apimachineryjson.DecodeCondition(r, &out.Condition)",
		"jsonEncodeBasics(w, &in.Struct)", // a struct is never empty
		"r.Value(&out.Level)",             // text marshalers: reflection
		"w.Value(&in.Stringly)",           // an unsupported struct: reflection
		"r.Unmarshaler(&out.Own)",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("generated code lacks %s", want)
		}
	}
	if strings.Contains(src, `"\"noArray\":"`) {
		t.Error("an omitempty [0]int32 is written")
	}
}

// TestGenerateDeterministic generates twice and compares.
func TestGenerateDeterministic(t *testing.T) {
	api := sharedShapes(t)
	first, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	second, err := New().Generate(loadShapes(t))
	if err != nil {
		t.Fatal(err)
	}
	for path, b := range first {
		if !bytes.Equal(b, second[path]) {
			t.Errorf("%s differs between two runs", path)
		}
	}
}

// TestGenerateHandWritten reports a hand-written function with a generated codec's name at
// its position.
func TestGenerateHandWritten(t *testing.T) {
	api := loadShapes(t)
	pkg := api.Packages[0]
	pkg.Funcs["jsonDecodeBasics"] = model.Position{File: "types.go", Line: 7, Col: 6}
	_, err := New().Generate(api)
	want := "types.go:7:6: cannot generate the JSON codec of Basics: function jsonDecodeBasics is declared by hand"
	if err == nil || err.Error() != want {
		t.Errorf("Generate error = %v, want %s", err, want)
	}
}

// TestShapesBehave compiles the golden file with testdata/shapes/v1 and runs the package's
// own tests, which hold every codec to encoding/json and sigs.k8s.io/json on random and
// hand-picked values.
func TestShapesBehave(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on testdata/shapes")
	}
	out, err := exec.Command("go", "test", "-count=1", "./testdata/shapes/v1").CombinedOutput()
	if err != nil {
		t.Fatalf("go test ./testdata/shapes/v1: %v\n%s", err, out)
	}
}
