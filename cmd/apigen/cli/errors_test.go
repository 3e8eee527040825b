package cli

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/internal/testinputs"
)

// The tests in this file run `apigen generate` with every real generator on small modules
// written into t.TempDir(), one mistake each, and check what a user reads: the diagnostic at
// file:line:col, the exit code, and that an error leaves the tree exactly as it was.

// widgetTypes is the types.go of a version package serving the kind Widget; the two %s are the
// fields of WidgetSpec and declarations appended after the types.
const widgetTypes = `package %s

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is a widget.
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `

	Spec WidgetSpec ` + "`json:\"spec\"`" + `
}

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
%s
}

// WidgetList is a list of widgets.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items           []Widget ` + "`json:\"items\"`" + `
}
%s`

// singleVersion returns the files of a module whose only API package is v1 (its own hub),
// with WidgetSpec's fields and extra declarations as given.
func singleVersion(fields, extra string) map[string]string {
	files := map[string]string{}
	addGroup(files, "widgets", fields, extra)
	return files
}

// addGroup adds to files the group <name>.example.com at apis/<name>, whose only API package
// is v1 (its own hub), with WidgetSpec's fields and extra declarations as given.
func addGroup(files map[string]string, name, fields, extra string) {
	files["apis/"+name+"/v1/doc.go"] = "// Package v1 is the only version of " + name + ".example.com.\n// +groupName=" + name + ".example.com\npackage v1\n"
	files["apis/"+name+"/v1/types.go"] = fmt.Sprintf(widgetTypes, "v1", fields, extra)
}

// writeModule writes files (relative path -> content) into a new module example.com/fixture in
// t.TempDir() (go.mod and go.sum from apigen's, so the same dependencies resolve), makes it
// the working directory and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(moduleRoot, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] = string(regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module example.com/fixture")))
	files["go.sum"] = string(gosum)
	for name, content := range files {
		if err := writeFile(filepath.Join(dir, name), []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

// tree returns every file under dir, relative path -> content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// at returns "file:line:col" of the first line of file (in files) containing substr, col
// being where substr starts (1-based, tabs count as one column as go/token counts them).
func at(t *testing.T, files map[string]string, file, substr string) string {
	t.Helper()
	for i, line := range strings.Split(files[file], "\n") {
		if col := strings.Index(line, substr); col >= 0 {
			return fmt.Sprintf("%s:%d:%d", file, i+1, col+1)
		}
	}
	t.Fatalf("%s has no line containing %q", file, substr)
	return ""
}

// diagnosticCase is one mistake of TestGenerateDiagnostics: WidgetSpec's fields and extra
// declarations (singleVersion), and the one diagnostic apigen generate reports for them.
type diagnosticCase struct {
	name    string
	fields  string
	extra   string
	wantAt  string // substring of the line the diagnostic points at
	want    string // the diagnostic after "file:line:col: "
	warning bool
}

// diagnosticCases are TestGenerateDiagnostics' mistakes.
var diagnosticCases = []diagnosticCase{{
	name:   "misspelt marker",
	fields: "\t// +kubebuilder:validaton:Minimum=0\n\tSize int32 `json:\"size\"`",
	wantAt: "// +kubebuilder:validaton", want: "warning: unknown marker +kubebuilder:validaton:Minimum (did you mean +kubebuilder:validation:Minimum?)",
	warning: true,
}, {
	name:   "misspelt bare marker",
	fields: "\t// +optinal\n\tSize int32 `json:\"size,omitempty\"`",
	wantAt: "// +optinal", want: "warning: unknown marker +optinal (did you mean +optional?)",
	warning: true,
}, {
	name:   "wrong-typed value",
	fields: "\t// +kubebuilder:validation:Minimum=abc\n\tSize int32 `json:\"size\"`",
	wantAt: "// +kubebuilder:validation:Minimum", want: "+kubebuilder:validation:Minimum=abc: cannot parse abc as a number",
}, {
	name:   "conflicting minimums",
	fields: "\t// +kubebuilder:validation:Minimum=1\n\t// +k8s:minimum=2\n\tSize int32 `json:\"size\"`",
	wantAt: "// +k8s:minimum", want: "+k8s:minimum=2: conflicts with +kubebuilder:validation:Minimum=1",
}, {
	name:   "default on a required field",
	fields: "\t// +required\n\t// +default=3\n\tSize int32 `json:\"size\"`",
	wantAt: "// +default", want: "+default=3: a required field cannot have a default",
}, {
	name:   "optional and required",
	fields: "\t// +optional\n\t// +kubebuilder:validation:Required\n\tSize int32 `json:\"size,omitempty\"`",
	wantAt: "// +kubebuilder:validation:Required", want: "+kubebuilder:validation:Required: a field cannot be both optional and required (+optional); keep one",
}, {
	name:   "default violating its own maximum",
	fields: "\t// +optional\n\t// +default=12\n\t// +kubebuilder:validation:Maximum=9\n\tSize int32 `json:\"size,omitempty\"`",
	wantAt: "Size int32", want: "default 12 of WidgetSpec.Size violates +kubebuilder:validation:Maximum=9",
}, {
	name:    "required with omitempty and no +required",
	fields:  "\t// +kubebuilder:validation:Required\n\tSize int32 `json:\"size,omitempty\"`",
	wantAt:  "Size int32",
	want:    "warning: field WidgetSpec.Size is required but its json tag has omitempty and it has no +required: openapi-gen would publish it as optional; add +required (or drop omitempty)",
	warning: true,
}, {
	name:   "marker glued to a func",
	fields: "\t// +optional\n\tSize int32 `json:\"size,omitempty\"`",
	extra:  "\n// SetDefaults_Widget sets a size.\n// +kubebuilder:default=1\nfunc SetDefaults_Widget(w *Widget) { w.Spec.Size = 1 }\n",
	wantAt: "// +kubebuilder:default",
	want: "warning: marker +kubebuilder:default is on func SetDefaults_Widget and is ignored: markers apply to packages, " +
		"types and fields; move it to the type's or field's comment (package markers go in doc.go)",
	warning: true,
}}

// TestGenerateDiagnostics runs apigen generate on one mistake at a time: each error is
// reported at its file:line:col with the message a user can act on, exits 1 and writes
// nothing; each warning is printed and the run goes on (exit 0). Under -short the mistakes
// are made all at once instead (generateDiagnosticsTogether): the same diagnostics, at the
// same lines, in one run rather than one per mistake (each run is a go list and a load, a
// third of a CPU-second); make test runs each mistake alone.
func TestGenerateDiagnostics(t *testing.T) {
	if testing.Short() {
		generateDiagnosticsTogether(t, diagnosticCases)
		return
	}
	const types = "apis/widgets/v1/types.go"
	for _, tt := range diagnosticCases {
		t.Run(tt.name, func(t *testing.T) {
			files := singleVersion(tt.fields, tt.extra)
			dir := writeModule(t, files)
			before := tree(t, dir)
			code, stdout, stderr := run(t, "generate", "./...")
			want := at(t, files, types, tt.wantAt) + ": " + tt.want + "\n"
			if !tt.warning {
				want += "apigen: 1 error(s); nothing written\n"
			}
			if diff := cmp.Diff(want, stderr); diff != "" {
				t.Errorf("generate stderr mismatch (-want +got):\n%s\nstdout:\n%s", diff, stdout)
			}
			after := tree(t, dir)
			if tt.warning {
				if code != 0 || len(after) == len(before) {
					t.Errorf("generate exit %d, %d files before and %d after; want exit 0 and files written", code, len(before), len(after))
				}
				return
			}
			if code != 1 {
				t.Errorf("generate exit %d, want 1", code)
			}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("generate changed the tree despite an error (-before +after):\n%s", diff)
			}
		})
	}
}

// generateDiagnosticsTogether writes each of cases as a group of its own (apis/caseNN, NN
// its 1-based index) into one module and runs apigen generate once: every case's diagnostic
// comes out at its file:line:col, sorted, then the count of errors; exit 1 (or 0 when every
// case is a warning, with files written), and an error leaves the tree as it was.
func generateDiagnosticsTogether(t *testing.T, cases []diagnosticCase) {
	files := map[string]string{}
	var want strings.Builder
	errs := 0
	for i, tt := range cases {
		name := fmt.Sprintf("case%02d", i+1)
		addGroup(files, name, tt.fields, tt.extra)
		fmt.Fprintf(&want, "%s: %s\n", at(t, files, "apis/"+name+"/v1/types.go", tt.wantAt), tt.want)
		if !tt.warning {
			errs++
		}
	}
	if errs > 0 {
		fmt.Fprintf(&want, "apigen: %d error(s); nothing written\n", errs)
	}
	dir := writeModule(t, files)
	before := tree(t, dir)
	code, stdout, stderr := run(t, "generate", "./...")
	if diff := cmp.Diff(want.String(), stderr); diff != "" {
		t.Errorf("generate stderr mismatch (-want +got):\n%s\nstdout:\n%s", diff, stdout)
	}
	after := tree(t, dir)
	if errs == 0 {
		if code != 0 || len(after) == len(before) {
			t.Errorf("generate exit %d, %d files before and %d after; want exit 0 and files written", code, len(before), len(after))
		}
		return
	}
	if code != 1 {
		t.Errorf("generate exit %d, want 1", code)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("generate changed the tree despite errors (-before +after):\n%s", diff)
	}
}

// hubModule is a group shop.example.com with a hub package and versions v1 and v1beta1;
// v1beta1's WidgetSpec.Size is a string where the hub's is an int32, so conversion needs a
// hand-written function in both directions. v1 has two marker mistakes, and a stale
// zz_generated file sits in v1 to show nothing is rewritten or deleted.
func hubModule() map[string]string {
	files := map[string]string{
		"apis/shop/doc.go":    "// Package shop is the hub of shop.example.com.\n// +groupName=shop.example.com\npackage shop\n",
		"apis/shop/types.go":  fmt.Sprintf(widgetTypes, "shop", "\tSize int32 `json:\"size\"`", ""),
		"apis/shop/v1/doc.go": "// Package v1 is stable.\n// +k8s:conversion-gen=example.com/fixture/apis/shop\n// +groupName=shop.example.com\npackage v1\n",
		"apis/shop/v1beta1/doc.go": "// Package v1beta1 is older.\n// +k8s:conversion-gen=example.com/fixture/apis/shop\n" +
			"// +groupName=shop.example.com\npackage v1beta1\n",
		"apis/shop/v1/types.go": fmt.Sprintf(widgetTypes, "v1",
			"\t// +kubebuilder:validation:Minimum=1\n\t// +k8s:minimum=2\n\t// +kubebuilder:validation:MaxLenght=3\n\tSize int32 `json:\"size\"`", ""),
		"apis/shop/v1beta1/types.go":            fmt.Sprintf(widgetTypes, "v1beta1", "\tSize string `json:\"size\"`", ""),
		"apis/shop/v1/zz_generated.deepcopy.go": "//go:build !ignore_autogenerated\n\n// Code generated by apigen. DO NOT EDIT.\n\npackage v1\n",
	}
	return files
}

// TestGenerateReportsAllErrorsTogether shows one run reporting the load's marker errors and
// the conversion generator's errors together, sorted by position, each conversion error naming
// the exact function to write; exit 1, and the tree is unchanged.
func TestGenerateReportsAllErrorsTogether(t *testing.T) {
	files := hubModule()
	dir := writeModule(t, files)
	before := tree(t, dir)
	code, stdout, stderr := run(t, "generate", "./...")
	if code != 1 {
		t.Errorf("generate exit %d, want 1\nstdout:\n%s", code, stdout)
	}
	want := strings.Join([]string{
		at(t, files, "apis/shop/types.go", "Size int32") + ": cannot convert shop.WidgetSpec.Size (int32) to v1beta1.WidgetSpec: " +
			"the v1beta1 field has type string; write func Convert_shop_WidgetSpec_To_v1beta1_WidgetSpec" +
			"(in *shop.WidgetSpec, out *WidgetSpec, s conversion.Scope) error in package v1beta1 " +
			"(it may call the generated autoConvert_shop_WidgetSpec_To_v1beta1_WidgetSpec)",
		at(t, files, "apis/shop/v1/types.go", "// +k8s:minimum") + ": +k8s:minimum=2: conflicts with +kubebuilder:validation:Minimum=1",
		at(t, files, "apis/shop/v1/types.go", "// +kubebuilder:validation:MaxLenght") +
			": warning: unknown marker +kubebuilder:validation:MaxLenght (did you mean +kubebuilder:validation:MaxLength?)",
		at(t, files, "apis/shop/v1beta1/types.go", "Size string") + ": cannot convert v1beta1.WidgetSpec.Size (string) to shop.WidgetSpec: " +
			"the hub field has type int32; write func Convert_v1beta1_WidgetSpec_To_shop_WidgetSpec" +
			"(in *WidgetSpec, out *shop.WidgetSpec, s conversion.Scope) error in package v1beta1 " +
			"(it may call the generated autoConvert_v1beta1_WidgetSpec_To_shop_WidgetSpec)",
		"apigen: 3 error(s); nothing written",
	}, "\n") + "\n"
	if diff := cmp.Diff(want, stderr); diff != "" {
		t.Errorf("generate stderr mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
		t.Errorf("generate changed the tree despite errors (-before +after):\n%s", diff)
	}
	code, _, verifyErr := run(t, "verify", "./...")
	if code != 1 || verifyErr != stderr {
		t.Errorf("verify exit %d, stderr:\n%s\nwant the same report as generate", code, verifyErr)
	}
}

// TestGenerateAfterFixingConversion writes the two conversion functions the report asks for
// (and fixes the markers): the same module then generates, exit 0.
func TestGenerateAfterFixingConversion(t *testing.T) {
	files := hubModule()
	files["apis/shop/v1/types.go"] = fmt.Sprintf(widgetTypes, "v1", "\t// +kubebuilder:validation:Minimum=1\n\tSize int32 `json:\"size\"`", "")
	files["apis/shop/v1beta1/convert.go"] = `package v1beta1

import (
	"os/exec"
	"strconv"

	"k8s.io/apimachinery/pkg/conversion"

	"example.com/fixture/apis/shop"
)

// Convert_shop_WidgetSpec_To_v1beta1_WidgetSpec writes the size as a decimal string.
func Convert_shop_WidgetSpec_To_v1beta1_WidgetSpec(in *shop.WidgetSpec, out *WidgetSpec, s conversion.Scope) error {
	out.Size = strconv.Itoa(int(in.Size))
	return nil
}

// Convert_v1beta1_WidgetSpec_To_shop_WidgetSpec parses the decimal size.
func Convert_v1beta1_WidgetSpec_To_shop_WidgetSpec(in *WidgetSpec, out *shop.WidgetSpec, s conversion.Scope) error {
	n, err := strconv.Atoi(in.Size)
	out.Size = int32(n)
	return err
}
`
	dir := writeModule(t, files)
	if code, stdout, stderr := run(t, "generate", "./..."); code != 0 {
		t.Fatalf("generate exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "apis/shop/v1beta1/zz_generated.conversion.go")); err != nil {
		t.Errorf("no conversion file for v1beta1: %v", err)
	}
}

// TestKubebuilderBookMarkers runs apigen generate on types written as the kubebuilder book
// writes them: its documentation markers (+kubebuilder:docs-gen:collapse) are accepted without
// a word, controller-gen's ":=" form sets a default and a bound, and every unknown marker of the
// kubebuilder namespace is a warning at its own line (exit 0), an error with --strict (exit 1,
// nothing written).
func TestKubebuilderBookMarkers(t *testing.T) {
	const types = "apis/widgets/v1/types.go"
	fields := "\t// +kubebuilder:validation:Enum=Allow;Forbid\n\t// +kubebuilder:default:=Allow\n\t// +optional\n" +
		"\tPolicy string `json:\"policy,omitempty\"`\n" +
		"\t// +kubebuilder:validation:Minimum:=1\n\t// +kubebuilder:validaton:Maximum=9\n\t// +optional\n" +
		"\tSize int32 `json:\"size,omitempty\"`\n" +
		"\t// +kubebuilder:docs-gen:collapse=Fields\n\t// +kubebuilder:frobnicate\n\t// +optional\n" +
		"\tNote string `json:\"note,omitempty\"`"
	extra := "\n// +kubebuilder:docs-gen:collapse=Root Object Definitions\n\n// Gadget is no kind.\n" +
		"// +kubebuilder:docs-gen:collapse=Gadget\n// +kubebuilder:validaton:MaxProperties=3\ntype Gadget struct{}\n"
	files := singleVersion(fields, extra)
	dir := writeModule(t, files)
	before := tree(t, dir)
	warnings := []string{
		at(t, files, types, "// +kubebuilder:validaton:Maximum") + ": warning: unknown marker +kubebuilder:validaton:Maximum (did you mean +kubebuilder:validation:Maximum?)",
		at(t, files, types, "// +kubebuilder:frobnicate") + ": warning: unknown marker +kubebuilder:frobnicate: apigen and controller-gen ignore it",
		at(t, files, types, "// +kubebuilder:validaton:MaxProperties") + ": warning: unknown marker +kubebuilder:validaton:MaxProperties (did you mean +kubebuilder:validation:MaxProperties?)",
	}
	code, stdout, stderr := run(t, "generate", "--strict", "./...")
	want := strings.Join(warnings, "\n") + "\napigen: 3 warning(s), errors under --strict; nothing written\n"
	if code != 1 || stderr != want {
		t.Errorf("generate --strict exit %d, stderr:\n%s\nwant exit 1 and:\n%s", code, stderr, want)
	}
	if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
		t.Errorf("generate --strict changed the tree (-before +after):\n%s", diff)
	}
	code, stdout, stderr = run(t, "generate", "./...")
	if want := strings.Join(warnings, "\n") + "\n"; code != 0 || stderr != want {
		t.Fatalf("generate exit %d, stderr:\n%s\nwant exit 0 and:\n%s\nstdout:\n%s", code, stderr, want, stdout)
	}
	validation, err := os.ReadFile(filepath.Join(dir, "apis/widgets/v1/zz_generated.validation.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(validation), "Minimum(ctx, op, fldPath, obj, oldObj, 1.0, false)") {
		t.Errorf("+kubebuilder:validation:Minimum:=1 generated no minimum of 1:\n%s", validation)
	}
	defaults, err := os.ReadFile(filepath.Join(dir, "apis/widgets/v1/zz_generated.defaults.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(defaults), `"Allow"`) {
		t.Errorf("+kubebuilder:default:=Allow generated no default \"Allow\":\n%s", defaults)
	}
}

// TestUserDeclarationsKeepTheirNames runs apigen generate on a package that declares names
// generated files would otherwise declare too: Gateway API's `type Kind string` and a
// `type Resource struct` are left to the package (register generates no func Kind or
// Resource) and the package builds (not under -short); a hand-written function named like a
// generated one is an error at the declaration, naming the generated file, and nothing is
// written.
func TestUserDeclarationsKeepTheirNames(t *testing.T) {
	const types = "apis/widgets/v1/types.go"
	fields := "\t// +kubebuilder:validation:Minimum=1\n\tSize int32 `json:\"size\"`\n\t// +optional\n\tOwner Kind `json:\"owner,omitempty\"`"
	extra := "\n// Kind is a kind of widget owner, as Gateway API declares one.\ntype Kind string\n\n// Resource is a resource name.\ntype Resource struct{}\n"
	root, err := filepath.Abs(moduleRoot) // before writeModule changes the working directory
	if err != nil {
		t.Fatal(err)
	}
	files := singleVersion(fields, extra)
	dir := writeModule(t, files)
	if code, stdout, stderr := run(t, "generate", "./..."); code != 0 || stderr != "" {
		t.Fatalf("generate exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if testing.Short() {
		// go build (a child process compiling the generated package against the runtime, and
		// go list for testinputs) is most of this test's time; make test builds it.
		t.Log("-short: the generated package is not built")
	} else {
		// The generated code links against apigen's runtime: this checkout.
		testinputs.Declare(t, "./runtime/...")
		gomod := files["go.mod"] + "\nrequire github.com/apigen-dev/apigen v0.0.0\n\nreplace github.com/apigen-dev/apigen => " + root + "\n"
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("go", "build", "./...").CombinedOutput(); err != nil {
			t.Fatalf("go build of the generated package: %v\n%s", err, out)
		}
	}

	t.Chdir(filepath.Join(root, "cmd/apigen/cli")) // writeModule reads apigen's go.mod from here
	files = singleVersion(fields, extra+"\n// Validate_WidgetSpec clashes with the generated validation.\nfunc Validate_WidgetSpec() {}\n")
	dir = writeModule(t, files)
	before := tree(t, dir)
	code, _, stderr := run(t, "generate", "./...")
	want := at(t, files, types, "Validate_WidgetSpec() {}") + ": Validate_WidgetSpec is also declared by the generated " +
		"zz_generated.validation.go (validation generator); rename this declaration\napigen: 1 error(s); nothing written\n"
	if code != 1 || stderr != want {
		t.Errorf("generate exit %d, stderr:\n%s\nwant exit 1 and:\n%s", code, stderr, want)
	}
	if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
		t.Errorf("generate changed the tree despite the clash (-before +after):\n%s", diff)
	}
}
