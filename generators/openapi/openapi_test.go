package openapi

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/model/modeltest"
)

// checkGolden compares files with the golden files under testdata/<name>/.
func checkGolden(t *testing.T, name string, files map[string][]byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), files, golden.ByPackageDir)
}

func TestGenerateGolden(t *testing.T) {
	files, err := New().Generate(testAPI())
	if err != nil {
		t.Fatal(err)
	}
	want := "/src/" + hubPath + "/install/zz_generated.openapi.go"
	if len(files) != 1 || files[want] == nil {
		t.Fatalf("want one file %s, got %d files", want, len(files))
	}
	checkGolden(t, "example", files)
}

func TestGenerateDeterministic(t *testing.T) {
	first, err := New().Generate(testAPI())
	if err != nil {
		t.Fatal(err)
	}
	second, err := New().Generate(testAPI())
	if err != nil {
		t.Fatal(err)
	}
	for path, content := range first {
		if !bytes.Equal(content, second[path]) {
			t.Errorf("%s differs between two runs", path)
		}
	}
}

// TestUnsupportedMapKey reports a map whose keys OpenAPI cannot describe at the field.
func TestUnsupportedMapKey(t *testing.T) {
	api := testAPI()
	spec := api.Groups[0].Versions[0].Package.Type("DatabaseSpec")
	f := spec.Field("Parameters")
	f.Type = modeltest.Map(modeltest.Basic("int32"), modeltest.Basic("string"))
	f.Pos = model.Position{File: "types.go", Line: 7, Col: 2}
	_, err := New().Generate(api)
	var diags model.Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("want model.Diagnostics, got %v", err)
	}
	want := "types.go:7:2: cannot describe map[int32] in OpenAPI: only string map keys are supported"
	if diags.Error() != want {
		t.Errorf("got %q, want %q", diags.Error(), want)
	}
}

func TestFunctionNamesFallBackOnCollision(t *testing.T) {
	g := &model.Group{Versions: []*model.Version{{Package: &model.Package{Path: "a/db/v1"}}}}
	own := &model.Type{Name: model.TypeName{Package: "a/db/v1", Name: "X"}}
	other := &model.Type{Name: model.TypeName{Package: "db/v1", Name: "X"}}
	names := functionNames(g, []*model.Type{own, other})
	if names[own] != "schema_a_db_v1_X" || names[other] != "schema_db_v1_X" {
		t.Errorf("names = %v", names)
	}
}

func TestDescription(t *testing.T) {
	for doc, want := range map[string]string{
		"One line.":                     "One line.",
		"Two\nlines.":                   "Two lines.",
		"Para one.\n\nPara two.":        "Para one.\n\nPara two.",
		"Shown.\n---\nHidden.":          "Shown.",
		"Example:\n\tindented\nafter.":  "Example:\n\tindented\nafter.",
		"Kept.\nTODO: drop me\n+marker": "Kept.",
	} {
		if got := description(doc); got != want {
			t.Errorf("description(%q) = %q, want %q", doc, got, want)
		}
	}
}

// TestBadDefault reports a +default that is not JSON at the field.
func TestBadDefault(t *testing.T) {
	api := testAPI()
	f := api.Groups[0].Versions[0].Package.Type("BackupPolicy").Field("RetentionDays")
	f.Markers.Default = str("seven")
	f.Pos = model.Position{File: "types.go", Line: 12, Col: 2}
	_, err := New().Generate(api)
	if err == nil || !strings.HasPrefix(err.Error(), `types.go:12:2: cannot use the default of BackupPolicy.RetentionDays: "seven" is not JSON`) {
		t.Fatalf("want a diagnostic about the default, got %v", err)
	}
}

// TestCoreGroupDoc names the core group ("") in the generated doc comment.
func TestCoreGroupDoc(t *testing.T) {
	api := testAPI()
	api.Groups[0].Name = ""
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	for path, content := range files {
		if !strings.Contains(string(content), "every type the core group serves") {
			t.Errorf("%s does not name the core group", path)
		}
	}
}
