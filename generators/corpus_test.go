package generators_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators"
	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/output"
	"github.com/apigen-dev/apigen/internal/testinputs"
)

// corpusTree is one API tree of the compatibility corpus (testdata/corpus/README.md).
type corpusTree struct {
	// name is the tree's directory under testdata/corpus: "codegen" or "kubebuilder".
	name string
	// pattern is the go list pattern of the tree's packages, relative to the module root.
	pattern string
}

// corpusTrees are the trees the compatibility tests run on.
var corpusTrees = []corpusTree{
	{name: "codegen", pattern: "./generators/testdata/corpus/codegen/..."},
	{name: "kubebuilder", pattern: "./generators/testdata/corpus/kubebuilder/..."},
	{name: "clients", pattern: "./generators/testdata/corpus/clients/..."},
	{name: "versions", pattern: "./generators/testdata/corpus/versions/..."},
}

// expectedCorpusWarnings are the warnings the corpus is written to draw: markers users of
// code-generator write that apigen accepts but cannot honour (it generates no APILifecycle
// methods).
var expectedCorpusWarnings = []string{"+k8s:prerelease-lifecycle-gen"}

// expectedCorpusWarning reports whether d is one of expectedCorpusWarnings.
func expectedCorpusWarning(d model.Diagnostic) bool {
	for _, w := range expectedCorpusWarnings {
		if d.Warning && strings.Contains(d.Message, w) {
			return true
		}
	}
	return false
}

// moduleRoot returns the absolute path of the module root (the parent of generators/).
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// generateTree runs the generate pass on tree (generators.Run, as `apigen generate` does),
// returning the files by absolute path and the directories whose zz_generated files apigen
// owns.
func generateTree(t *testing.T, tree corpusTree) (files map[string][]byte, owned []string) {
	t.Helper()
	pass, err := generators.Run(moduleRoot(t), []string{tree.pattern}, generators.All())
	if err != nil {
		t.Fatalf("cannot load the %s corpus: %v", tree.name, err)
	}
	if pass.Diagnostics.HasErrors() {
		t.Fatalf("cannot generate the %s corpus:\n%v", tree.name, pass.Diagnostics)
	}
	var unexpected model.Diagnostics
	for _, d := range pass.Diagnostics {
		if !expectedCorpusWarning(d) {
			unexpected = append(unexpected, d)
		}
	}
	if len(unexpected) > 0 {
		t.Errorf("loading the %s corpus warned:\n%v", tree.name, unexpected)
	}
	return pass.Files, pass.Owned()
}

// firstPass is tree's first generate pass in this test binary (generateTree), made once and
// shared by the tests that read it (TestCorpusGolden, which compares it with a second pass of
// its own, TestCorpusBuilds, TestCorpusKeepsHandWrittenInstall, TestClientsMatchCodeGenerator):
// a pass loads the tree (one `go list`) and runs every generator, a second or two each.
// Callers must not change the files.
func firstPass(t *testing.T, tree corpusTree) (files map[string][]byte, owned []string) {
	t.Helper()
	p := golden.Shared(t, "first generate pass of the "+tree.name+" corpus", func() corpusPass {
		files, owned := generateTree(t, tree)
		return corpusPass{files, owned}
	})
	return p.files, p.owned
}

// corpusPass is a generate pass's files and the paths it owns.
type corpusPass struct {
	files map[string][]byte
	owned []string
}

// TestCorpusGolden regenerates each corpus tree in memory and diffs the result against the
// committed zz_generated files, which act as golden files (`go test ./generators -run
// TestCorpus -update` rewrites them, deleting stale ones, as apigen generate does). A second
// run must give the same bytes; under -short there is no second run (a load and every
// generator again, half of this test's CPU): make test compares the two runs, and -short
// still holds apigen generate's output to itself twice on a smaller module (cmd/apigen/cli's
// TestGenerateWithAllGenerators) and each generator's to itself (their
// TestGenerateDeterministic). The trees are generated side by side.
func TestCorpusGolden(t *testing.T) {
	for _, tree := range corpusTrees {
		t.Run(tree.name, func(t *testing.T) {
			t.Parallel()
			files, owned := firstPass(t, tree)
			if golden.Updating() {
				if _, err := output.Write(files, owned, output.Delete); err != nil {
					t.Fatalf("cannot write the %s corpus: %v", tree.name, err)
				}
			}
			diffs, err := output.Diff(files, owned)
			if err != nil {
				t.Fatalf("cannot diff the %s corpus: %v", tree.name, err)
			}
			for _, d := range diffs {
				t.Errorf("%s is %s (run go test ./generators -run TestCorpusGolden -update):\n%s", d.Path, d.Status, d.Unified)
			}
			if testing.Short() {
				return
			}
			again, _ := generateTree(t, tree)
			for path, b := range files {
				if !bytes.Equal(b, again[path]) {
					t.Errorf("%s differs between two runs", path)
				}
			}
		})
	}
}

// corpusPattern matches every corpus package, the trees and corpustest's tests.
const corpusPattern = "./generators/testdata/corpus/..."

// TestCorpusBuilds builds and vets every corpus package, then runs their tests: corpustest's,
// which serve each corpus group over etcd and HTTP and round-trip every kind through every
// version, and each group's generated round-trip test (zz_generated.roundtrip_test.go). The
// files generated now are laid over the tree (go -overlay), so the checks hold for apigen's
// current output even before -update, and a stale committed file cannot break the build of
// this package. Last, the codegen tree's hand-written v1beta1 conversion is made lossy and its
// generated round-trip test must fail naming the lost field (lossyConversionFails).
func TestCorpusBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build, go vet and go test on the corpus")
	}
	t.Parallel()
	testinputs.Declare(t, corpusPattern)
	files := map[string][]byte{}
	for _, tree := range corpusTrees {
		generated, _ := firstPass(t, tree)
		maps.Copy(files, generated)
	}
	overlay := writeOverlay(t, files)
	for _, args := range [][]string{
		{"build", "-overlay", overlay, corpusPattern},
		{"vet", "-overlay", overlay, corpusPattern},
		{"test", "-count=1", "-vet=off", "-overlay", overlay, corpusPattern}, // vetted just above
	} {
		t.Run(args[0], func(t *testing.T) {
			cmd := exec.Command("go", args...)
			cmd.Dir = moduleRoot(t)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		})
	}
	t.Run("lossy conversion", func(t *testing.T) { lossyConversionFails(t, files) })
}

// lossyConversionFails lays over files a version of the codegen tree's v1beta1/conversion.go
// whose conversion from the hub forgets spec.size (Convert_shop_StoreSpec_To_v1beta1_StoreSpec
// no longer copies Replicas), and runs the group's generated round-trip test: it must fail for
// Store objects filled in v1beta1, on their way through the storage version and back, naming
// spec.size, the field that was lost. Run by TestCorpusBuilds, after the tree's own tests
// passed with the conversion intact.
func lossyConversionFails(t *testing.T, files map[string][]byte) {
	dir := filepath.Join(moduleRoot(t), "generators/testdata/corpus/codegen/apis/shop")
	conversion := filepath.Join(dir, "v1beta1", "conversion.go")
	src, err := os.ReadFile(conversion)
	if err != nil {
		t.Fatal(err)
	}
	const copySize = "\tout.Size = in.Replicas\n"
	if !bytes.Contains(src, []byte(copySize)) {
		t.Fatalf("%s no longer copies Replicas to spec.size with %q", conversion, copySize)
	}
	lossy := maps.Clone(files)
	lossy[conversion] = bytes.Replace(src, []byte(copySize), []byte("\t// spec.size is lost\n"), 1)
	cmd := exec.Command("go", "test", "-count=1", "-vet=off", "-run", "^TestRoundTrip$", "-overlay", writeOverlay(t, lossy), "./install")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the generated round-trip test passed with a lossy conversion:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: TestRoundTrip/Store/v1beta1",
		"shop.example.com/v1beta1, Kind=Store changed on its way v1beta1 -> v1beta1 JSON -> __internal -> v1 -> " +
			"v1 JSON (the storage version) -> __internal -> v1beta1 (as read back from storage):",
		"spec.size: &",
		"-> nil",
		"(a conversion that loses a field loses stored data: fix it;",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the failure does not say %q:\n%s", want, out)
		}
	}
}

// writeOverlay writes files to a temporary directory and returns the path of a go build
// -overlay file mapping each original path to its copy.
func writeOverlay(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	replace := map[string]string{}
	for i, p := range paths {
		dst := filepath.Join(dir, fmt.Sprintf("%03d-%s", i, filepath.Base(p)))
		if err := os.WriteFile(dst, files[p], 0o644); err != nil {
			t.Fatal(err)
		}
		replace[p] = dst
	}
	b, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCorpusKeepsHandWrittenInstall: the codegen tree's install package has a hand-written
// install.go, as Kubernetes' and sample-apiserver's do. Generating beside it adopts its Install
// (zz_generated.install.go declares none, and NewAPIGroupInfo calls it) and leaves the file
// byte-identical, stale zz_generated files of the directory being deleted as usual.
func TestCorpusKeepsHandWrittenInstall(t *testing.T) {
	t.Parallel()
	files, owned := firstPass(t, corpusTrees[0])
	dir := filepath.Join(moduleRoot(t), "generators/testdata/corpus/codegen/apis/shop/install")
	handWritten := filepath.Join(dir, "install.go")
	original, err := os.ReadFile(handWritten)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(original, []byte("func Install(scheme *runtime.Scheme) {")) {
		t.Fatalf("%s no longer declares Install as sample-apiserver's install.go does", handWritten)
	}
	generated := files[filepath.Join(dir, "zz_generated.install.go")]
	if bytes.Contains(generated, []byte("func Install(")) || !bytes.Contains(generated, []byte("\tInstall(scheme)\n")) {
		t.Errorf("zz_generated.install.go declares Install or does not call the hand-written one:\n%s", generated)
	}
	stale := filepath.Join(dir, "zz_generated.old.go")
	fsys := output.NewMemFS(map[string][]byte{handWritten: original, stale: []byte("// Code generated by apigen. DO NOT EDIT.\n\npackage install\n")})
	res, err := output.WriteFS(fsys, files, owned, output.Delete)
	if err != nil {
		t.Fatal(err)
	}
	after := fsys.Files()
	if !bytes.Equal(after[handWritten], original) {
		t.Errorf("generate changed the hand-written install.go:\n%s", after[handWritten])
	}
	if _, ok := after[stale]; ok || !slices.Contains(res.Deleted, stale) {
		t.Errorf("generate kept the stale %s (deleted %v)", stale, res.Deleted)
	}
}
