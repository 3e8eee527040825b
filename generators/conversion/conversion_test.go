package conversion

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/model"
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
	for path := range files {
		if filepath.Base(path) != "zz_generated.conversion.go" {
			t.Errorf("unexpected output path %s", path)
		}
	}
	if _, ok := files["/src/"+hubPath+"/zz_generated.conversion.go"]; ok {
		t.Error("a conversion file was generated for the hub package")
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
	if len(first) != len(second) {
		t.Fatalf("generated %d files, then %d", len(first), len(second))
	}
	for path, content := range first {
		if !bytes.Equal(content, second[path]) {
			t.Errorf("%s differs between two runs", path)
		}
	}
}

// TestMissingManualConversion removes the hand-written DatabaseSpec conversions: the fields
// without a peer must be reported at their positions with the function to write.
func TestMissingManualConversion(t *testing.T) {
	api := testAPI()
	api.Groups[0].Versions[1].Package.Funcs = map[string]model.Position{}
	_, err := New().Generate(api)
	var diags model.Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("want model.Diagnostics, got %v", err)
	}
	want := []string{
		"types.go:22:2: cannot convert db.DatabaseSpec.Storage (resource.Quantity) to v1alpha1.DatabaseSpec: " +
			"the v1alpha1 type has no field Storage; write func Convert_db_DatabaseSpec_To_v1alpha1_DatabaseSpec" +
			"(in *db.DatabaseSpec, out *DatabaseSpec, s conversion.Scope) error in package v1alpha1 " +
			"(it may call the generated autoConvert_db_DatabaseSpec_To_v1alpha1_DatabaseSpec)",
		"types.go:22:2: cannot convert v1alpha1.DatabaseSpec.SizeGiB (int32) to db.DatabaseSpec: " +
			"the hub type has no field SizeGiB; write func Convert_v1alpha1_DatabaseSpec_To_db_DatabaseSpec" +
			"(in *DatabaseSpec, out *db.DatabaseSpec, s conversion.Scope) error in package v1alpha1 " +
			"(it may call the generated autoConvert_v1alpha1_DatabaseSpec_To_db_DatabaseSpec)",
	}
	if diff := cmp.Diff(want, strings.Split(diags.Error(), "\n")); diff != "" {
		t.Errorf("diagnostics differ (-want +got):\n%s", diff)
	}
}

// TestTypeMismatch changes a field's type in one version: a difference conversion cannot
// bridge is reported.
func TestTypeMismatch(t *testing.T) {
	api := testAPI()
	spec := api.Groups[0].Versions[0].Package.Type("DatabaseSpec")
	spec.Field("Replicas").Type = basic("int64")
	_, err := New().Generate(api)
	if err == nil || !strings.Contains(err.Error(), "cannot convert v1.DatabaseSpec.Replicas (int64) to db.DatabaseSpec: the hub field has type *int32") {
		t.Fatalf("want a diagnostic about Replicas, got %v", err)
	}
}

func TestHubIsVersionGeneratesNothing(t *testing.T) {
	api := testAPI()
	g := api.Groups[0]
	g.Hub, g.HubIsVersion, g.Versions = g.Versions[0].Package, true, g.Versions[:1]
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 0 {
		t.Errorf("want no files for a group whose hub is its only version, got %d", len(files))
	}
}

// TestGenerateVersions: a group without an internal package gets its conversions between
// versions, generated field by field for each kind and its list, in the version package that
// imports the other (v1beta1 imports v1: a file in v1 importing v1beta1 would be a cycle).
// Widget's hub is v1 and Grant's v1beta1, its storage version; the types v1beta1 shares with v1
// (WidgetSpec) are assigned.
func TestGenerateVersions(t *testing.T) {
	files, err := New().Generate(versionsAPI())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files["/src/example.com/gw/apis/v1/zz_generated.conversion.go"]; ok {
		t.Error("a conversion file was generated in v1, which v1beta1 imports")
	}
	checkGolden(t, "versions", files)
}

// TestGenerateVersionsWithoutImports: when neither version imports the other, the
// conversions go in the less preferred one.
func TestGenerateVersionsWithoutImports(t *testing.T) {
	api := versionsAPI()
	api.Groups[0].Versions[1].Package.Imports = nil
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	if want := []string{"/src/example.com/gw/apis/v1beta1/zz_generated.conversion.go"}; !cmp.Equal(want, paths) {
		t.Errorf("files %v, want %v", paths, want)
	}
}

// TestGenerateVersionsDiagnostics: a field one version lacks is reported at the field, naming
// the version (not "hub") and the function to write in the package the file goes in.
func TestGenerateVersionsDiagnostics(t *testing.T) {
	api := versionsAPI()
	w := api.Groups[0].Versions[1].Package.Type("Widget")
	w.Fields = append(w.Fields, field("Color", "color", basic("string"), 12))
	_, err := New().Generate(api)
	want := "types.go:12:2: cannot convert v1beta1.Widget.Color (string) to v1.Widget: the v1 type has no field Color; " +
		"write func Convert_v1beta1_Widget_To_v1_Widget(in *Widget, out *v1.Widget, s conversion.Scope) error in package v1beta1"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

// TestGenerateHubConvertible: a spoke (v2) whose CronJob has controller-runtime's ConvertTo
// and ConvertFrom converts to and from the hub's CronJob (v1, with Hub) through them, on deep
// copies, with no field-by-field code and no diagnostic for the fields the two versions do
// not share; the list converts item by item through them; Rota, of one schema and no
// conversion code, converts field by field (a CRD's None strategy).
func TestGenerateHubConvertible(t *testing.T) {
	files, err := New().Generate(hubAPI())
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "hub", files)
}

// TestHubWithoutConvertible: the same spoke without ConvertTo and ConvertFrom is converted
// field by field, so the fields v1 and v2 do not share are diagnostics.
func TestHubWithoutConvertible(t *testing.T) {
	api := hubAPI()
	api.Groups[0].Versions[0].Package.Type("CronJob").Convertible = false
	_, err := New().Generate(api)
	want := "types.go:10:2: cannot convert v2.CronJobSpec.Hour (int32) to v1.CronJobSpec: the v1 type has no field Hour"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

// TestConvertibleWithoutHub: a Convertible spoke whose hub version's type has no Hub method
// (the hub is then the storage version) is a diagnostic at the spoke type naming the method to
// write, not field diagnostics.
func TestConvertibleWithoutHub(t *testing.T) {
	api := hubAPI()
	delete(api.Groups[0].Versions[1].Package.Type("CronJob").Methods, "Hub")
	api.Groups[0].Versions[0].Package.Type("CronJob").Pos = model.Position{File: "cronjob_types.go", Line: 30, Col: 6}
	_, err := New().Generate(api)
	var diags model.Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("want model.Diagnostics, got %v", err)
	}
	want := []string{"cronjob_types.go:30:6: v2.CronJob has ConvertTo and ConvertFrom (controller-runtime's conversion.Convertible) " +
		"but its hub, v1.CronJob, has no Hub method: write func (*CronJob) Hub() {} in package v1, or remove ConvertTo " +
		"and ConvertFrom to convert field by field"}
	if diff := cmp.Diff(want, strings.Split(diags.Error(), "\n")); diff != "" {
		t.Errorf("diagnostics differ (-want +got):\n%s", diff)
	}
}

// TestConvertibleWithInternalHub: in the internal-hub layout Convertible changes nothing:
// every version converts to the internal package field by field and through its Convert_
// functions, as before.
func TestConvertibleWithInternalHub(t *testing.T) {
	want, err := New().Generate(testAPI())
	if err != nil {
		t.Fatal(err)
	}
	api := testAPI()
	for _, v := range api.Groups[0].Versions {
		v.Package.Type("Database").Convertible = true
	}
	got, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Convertible changed the internal-hub layout's conversions (-before +after):\n%s", diff)
	}
}
