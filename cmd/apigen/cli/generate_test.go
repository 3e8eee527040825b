package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators"
	"github.com/apigen-dev/apigen/generators/model"
)

func TestGenerateTwiceIsByteIdentical(t *testing.T) {
	useGenerators(t, fakeGenerator{})
	dir := setupFixture(t, "basic")
	code, stdout, stderr := run(t, "generate", "-v", "./...")
	if code != 0 {
		t.Fatalf("generate exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"wrote      apis/shop/v1/zz_generated.fake.go (fake)",
		"deleted    apis/shop/zz_generated.deepcopy.go",
		"apigen generate: 3 packages, 3 kinds, 4 files written, 0 unchanged, 1 stale deleted in ",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("generate stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "apis/shop/v1/types.go:83:6: warning: root type Orphan") {
		t.Errorf("generate stderr lacks the Orphan warning:\n%s", stderr)
	}
	first := snapshot(t, dir)
	if len(first) != 4 {
		t.Fatalf("after generate: %d zz_generated files, want 4: %v", len(first), first)
	}
	code, stdout, _ = run(t, "generate", "./...")
	if code != 0 || !strings.Contains(stdout, "apigen generate: 3 packages, 3 kinds, 0 files written, 4 unchanged in ") {
		t.Fatalf("second generate exit %d, stdout:\n%s", code, stdout)
	}
	if diff := cmp.Diff(first, snapshot(t, dir)); diff != "" {
		t.Errorf("second generate changed files (-first +second):\n%s", diff)
	}
	code, stdout, stderr = run(t, "verify", "./...")
	if code != 0 || !strings.Contains(stdout, "apigen verify: 3 packages, 3 kinds, 4 files checked, all up to date in ") {
		t.Errorf("verify after generate exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

func TestVerifyReportsEditedType(t *testing.T) {
	useGenerators(t, fakeGenerator{})
	dir := setupFixture(t, "basic")
	if code, _, stderr := run(t, "generate"); code != 0 {
		t.Fatalf("generate exit %d: %s", code, stderr)
	}
	types := filepath.Join(dir, "apis/shop/v1/types.go")
	src, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "type OrderStatus struct {\n", "type OrderStatus struct {\n\tMessage string `json:\"message\"`\n", 1)
	if err := os.WriteFile(types, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	code, stdout, stderr := run(t, "verify")
	if code != 1 {
		t.Fatalf("verify after edit exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"--- a/apis/shop/v1/zz_generated.fake.go\n+++ b/apis/shop/v1/zz_generated.fake.go\n",
		"-// OrderStatus: replicas\n+// OrderStatus: message replicas\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("verify stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "apis/shop/v1/zz_generated.fake.go (stale)") ||
		!strings.Contains(stderr, "apigen verify: 3 packages, 3 kinds, 4 files checked, 1 out of date in ") {
		t.Errorf("verify stderr does not name the stale file and summarize:\n%s", stderr)
	}
	code, stdout, _ = run(t, "verify", "-v")
	if code != 1 || !strings.Contains(stdout, "  stale      apis/shop/v1/zz_generated.fake.go (fake)\n") ||
		!strings.Contains(stdout, "  up to date apis/shop/zz_generated.fake.go (fake)\n") {
		t.Errorf("verify -v exit %d; want 1 and every file listed with its state:\n%s", code, stdout)
	}
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("verify wrote files (-before +after):\n%s", diff)
	}
}

func TestVerifyReportsMissingAndExtraFiles(t *testing.T) {
	useGenerators(t, fakeGenerator{})
	setupFixture(t, "single")
	code, stdout, stderr := run(t, "verify", "./...")
	if code != 1 || !strings.Contains(stdout, "--- /dev/null\n+++ b/v1alpha1/zz_generated.fake.go") ||
		!strings.Contains(stderr, "v1alpha1/zz_generated.fake.go (missing)") {
		t.Errorf("verify before generate exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, _, stderr := run(t, "generate"); code != 0 {
		t.Fatalf("generate exit %d: %s", code, stderr)
	}
	if err := os.WriteFile("v1alpha1/zz_generated.gone.go", []byte("package v1alpha1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, "verify")
	if code != 1 || !strings.Contains(stdout, "+++ /dev/null") || !strings.Contains(stderr, "v1alpha1/zz_generated.gone.go (extra)") {
		t.Errorf("verify with an extra file exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

func TestBadMarkerFailsWithPosition(t *testing.T) {
	useGenerators(t, fakeGenerator{})
	dir := setupFixture(t, "badmarker")
	for _, cmd := range []string{"generate", "verify"} {
		code, stdout, stderr := run(t, cmd, "./...")
		if code != 1 {
			t.Errorf("%s exit %d, want 1\nstdout:\n%s", cmd, code, stdout)
		}
		want := "v1/types.go:5:2: warning: unknown marker +kubebuilder:validaton:Minimum (did you mean +kubebuilder:validation:Minimum?)\n" +
			"v1/types.go:7:2: +kubebuilder:validation:Minimum=abc: cannot parse abc as a number\n" +
			"apigen: 1 error(s); nothing written\n"
		if diff := cmp.Diff(want, stderr); diff != "" {
			t.Errorf("%s stderr mismatch (-want +got):\n%s", cmd, diff)
		}
	}
	if files := snapshot(t, dir); len(files) != 0 {
		t.Errorf("files written despite errors: %v", files)
	}
}

func TestGeneratorDiagnosticsWriteNothing(t *testing.T) {
	useGenerators(t, fakeGenerator{diags: model.Diagnostics{
		{Pos: model.Position{File: "v1alpha1/types.go", Line: 9, Col: 2}, Message: "cannot convert field"},
		{Pos: model.Position{File: "v1alpha1/types.go", Line: 3, Col: 1}, Message: "first by position"},
	}})
	dir := setupFixture(t, "single")
	code, _, stderr := run(t, "generate")
	want := "v1alpha1/types.go:3:1: first by position\nv1alpha1/types.go:9:2: cannot convert field\napigen: 2 error(s); nothing written\n"
	if code != 1 || stderr != want {
		t.Errorf("generate exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	if files := snapshot(t, dir); len(files) != 0 {
		t.Errorf("files written despite errors: %v", files)
	}
}

// TestGenerateWithAllGenerators runs the real generators on a fixture: two runs give the
// same bytes and verify agrees.
func TestGenerateWithAllGenerators(t *testing.T) {
	if len(generators.All()) == 0 {
		t.Fatal("generators.All() is empty")
	}
	dir := setupFixture(t, "single")
	code, stdout, stderr := run(t, "generate", "-v")
	if code != 0 {
		t.Fatalf("generate exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	first := snapshot(t, dir)
	if len(first) == 0 {
		t.Fatalf("generate wrote no files:\n%s", stdout)
	}
	if code, _, stderr := run(t, "generate"); code != 0 {
		t.Fatalf("second generate exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff(first, snapshot(t, dir)); diff != "" {
		t.Errorf("second generate changed files (-first +second):\n%s", diff)
	}
	if code, stdout, stderr := run(t, "verify"); code != 0 {
		t.Errorf("verify exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

func TestHelpShowsExamples(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"generate", "--help"}, {"verify", "--help"}, {"version", "--help"}} {
		code, stdout, _ := run(t, args...)
		if code != 0 || !strings.Contains(stdout, "Examples:\n  ") {
			t.Errorf("apigen %v exit %d, output lacks examples:\n%s", args, code, stdout)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := run(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "apigen ") {
		t.Errorf("version exit %d, stdout %q", code, stdout)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"frobnicate"}, {"generate", "--nope"}, {"version", "extra"}} {
		code, _, stderr := run(t, args...)
		if code != 2 || !strings.Contains(stderr, "apigen --help") {
			t.Errorf("apigen %v exit %d, stderr %q; want 2 and a usage hint", args, code, stderr)
		}
	}
}

// TestClientTreeIsOwned generates the typed clients of a +genclient kind with the real
// generators, then checks that verify covers the tree of clients (pkg/generated): a deleted
// client file is missing, a generated file no generator produces any more is extra and
// generate deletes it, and a hand-written file in the tree is left alone.
func TestClientTreeIsOwned(t *testing.T) {
	dir := setupFixture(t, "clients")
	if code, stdout, stderr := run(t, "generate", "./..."); code != 0 {
		t.Fatalf("generate exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	lister := filepath.Join(dir, "pkg/generated/listers/ship/v1/boat.go")
	if _, err := os.Stat(lister); err != nil {
		t.Fatalf("generate wrote no lister: %v", err)
	}
	stale := filepath.Join(dir, "pkg/generated/listers/ship/v1beta1/boat.go")
	handWritten := filepath.Join(dir, "pkg/generated/listers/ship/v1/boat_expansion.go")
	for path, content := range map[string]string{stale: "// Code generated by apigen. DO NOT EDIT.\n\npackage v1beta1\n", handWritten: "package v1\n"} {
		if err := writeFile(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(lister); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "verify", "./...")
	if code != 1 || !strings.Contains(stderr, "pkg/generated/listers/ship/v1/boat.go (missing)") ||
		!strings.Contains(stderr, "pkg/generated/listers/ship/v1beta1/boat.go (extra)") || strings.Contains(stderr, "boat_expansion.go") {
		t.Errorf("verify exit %d, want 1 naming the missing lister and the extra file only:\n%s", code, stderr)
	}
	if code, stdout, stderr := run(t, "generate", "./..."); code != 0 || !strings.Contains(stdout, "1 stale deleted") {
		t.Fatalf("generate exit %d, want 0 and 1 stale deleted\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for path, want := range map[string]bool{lister: true, stale: false, handWritten: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("after generate, %s exists = %v, want %v", path, err == nil, want)
		}
	}
}

// TestCRDsAreOwned generates the fixture's CRDs with the real generators, then checks that
// verify covers them as it covers Go files (a changed CRD is stale, a deleted one missing, a
// generated one of the group that no generator produces any more extra, and generate deletes
// it), and that a hand-written YAML file and another group's CRD beside them are left alone.
func TestCRDsAreOwned(t *testing.T) {
	dir := setupFixture(t, "clients")
	if code, stdout, stderr := run(t, "generate", "./..."); code != 0 {
		t.Fatalf("generate exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	crds := filepath.Join(dir, "config/crd")
	boats := filepath.Join(crds, "ship.example.com_boats.yaml")
	content, err := os.ReadFile(boats)
	if err != nil || !strings.HasPrefix(string(content), "# Code generated by apigen. DO NOT EDIT.\n") {
		t.Fatalf("generate wrote no CRD with the header at %s: %v", boats, err)
	}
	gen := "# Code generated by apigen. DO NOT EDIT.\n---\nkind: CustomResourceDefinition\n"
	stale := filepath.Join(crds, "ship.example.com_rafts.yaml")
	handWritten := filepath.Join(crds, "ship.example.com_extra.yaml")
	other := filepath.Join(crds, "dock.example.com_piers.yaml")
	for path, content := range map[string]string{stale: gen, handWritten: "kind: CustomResourceDefinition\n", other: gen} {
		if err := writeFile(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeFile(boats, append(content, "# edited\n"...)); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "verify", "./...")
	out := stdout + stderr
	for _, want := range []string{"config/crd/ship.example.com_boats.yaml (stale)", "config/crd/ship.example.com_rafts.yaml (extra)", "-# edited"} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("verify exit %d, want 1 and %q:\n%s", code, want, out)
		}
	}
	if strings.Contains(out, "extra.yaml") || strings.Contains(out, "piers.yaml") {
		t.Errorf("verify names a file apigen does not own:\n%s", out)
	}
	if err := os.Remove(boats); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "verify", "./..."); code != 1 || !strings.Contains(stderr, "config/crd/ship.example.com_boats.yaml (missing)") {
		t.Errorf("verify exit %d, want 1 naming the missing CRD:\n%s", code, stderr)
	}
	if code, stdout, stderr := run(t, "generate", "./..."); code != 0 || !strings.Contains(stdout, "1 stale deleted") {
		t.Fatalf("generate exit %d, want 0 and 1 stale deleted\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for path, want := range map[string]bool{boats: true, stale: false, handWritten: true, other: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("after generate, %s exists = %v, want %v", path, err == nil, want)
		}
	}
}

// TestNoAPIPackagesIsAnError: patterns that match packages none of which is an API package
// (the go:generate directive above API packages that live elsewhere, say) fail, naming the
// patterns, the directory and the +groupName marker, instead of "0 packages" and exit 0.
func TestNoAPIPackagesIsAnError(t *testing.T) {
	useGenerators(t, fakeGenerator{})
	dir := setupFixture(t, "basic")
	if err := writeFile(filepath.Join(dir, "cmd/tool/main.go"), []byte("package main\n\nfunc main() {}\n")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"generate", "verify"} {
		code, stdout, stderr := run(t, cmd, "./cmd/...")
		if code != 1 {
			t.Errorf("%s ./cmd/...: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", cmd, code, stdout, stderr)
		}
		for _, want := range []string{"no API package in ./cmd/... (1 packages matched, looked in " + dir, "+groupName=<group>", "apigen generate ./pkg/apis/..."} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s ./cmd/... stderr lacks %q:\n%s", cmd, want, stderr)
			}
		}
	}
	if files := snapshot(t, dir); len(files) != 1 {
		t.Errorf("a run without API packages wrote or deleted files: %v", files)
	}
}

// TestHandWrittenInstallSignature: a hand-written install.go beside the generated files is
// adopted, as Kubernetes' and sample-apiserver's install packages are written, but an Install
// that the generated NewAPIGroupInfo cannot call is named at generate time with the signature
// to write (it would fail only at compile time), and nothing is written; tests there are fine.
func TestHandWrittenInstallSignature(t *testing.T) {
	useGenerators(t, fakeGenerator{})
	dir := setupFixture(t, "basic")
	before := snapshot(t, dir)
	for name, src := range map[string]string{
		"apis/shop/install/install.go":      "package install\n\nfunc Install() {}\n",
		"apis/shop/install/install_test.go": "package install\n",
	} {
		if err := writeFile(filepath.Join(dir, name), []byte(src)); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := run(t, "generate", "./...")
	if code != 1 {
		t.Fatalf("generate with a hand-written func Install(): exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	want := filepath.Join("apis", "shop", "install", "install.go") + ":3:6: func Install(): the generated NewAPIGroupInfo calls the install package's Install, " +
		"as Kubernetes' install packages declare it: write func Install(scheme *runtime.Scheme)"
	if !strings.Contains(stderr, want) || strings.Contains(stderr, "install_test.go") {
		t.Errorf("stderr does not name install.go (and only it) with %q:\n%s", want, stderr)
	}
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("a failed generate changed files (-before +after):\n%s", diff)
	}
}
