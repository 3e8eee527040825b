// Package golden compares generated files with golden files under a generator's testdata/,
// or rewrites them when the test runs with -update, as cmd/stringer's golden tests do. It
// declares the -update flag of every generator test binary, so no test declares its own.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is the -update flag of every test binary that imports golden.
var update = flag.Bool("update", false, "rewrite the golden and committed generated files the tests compare with, instead of comparing")

// Updating reports whether the test runs with -update, for a test that rewrites its files
// its own way (the corpus test writes through generators/output, as apigen generate does).
func Updating() bool { return *update }

// Check compares files (generated content keyed by absolute output path) with the golden
// files in dir, one per generated file, named by name(outputPath) (e.g. "v1.golden"). The set
// of golden files must equal the set generated. With -update, dir is emptied and rewritten
// instead. Differences are reported with t.Errorf as "-want +got" diffs.
func Check(t *testing.T, dir string, files map[string][]byte, name func(path string) string) {
	t.Helper()
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for path, content := range files {
		golden := filepath.Join(dir, name(path))
		got = append(got, filepath.Base(golden))
		if *update {
			if err := os.WriteFile(golden, content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("cannot read golden file (run go test -update): %v", err)
		}
		if diff := cmp.Diff(string(want), string(content)); diff != "" {
			t.Errorf("%s differs from %s (-want +got):\n%s", path, golden, diff)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		if e.Name() != "README.md" {
			want = append(want, e.Name())
		}
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("generated files differ from %s (-want +got):\n%s", dir, diff)
	}
}

// ByPackageDir names a golden file after the directory its output goes to: ".../v1/zz_generated.conversion.go" -> "v1.golden".
func ByPackageDir(path string) string { return filepath.Base(filepath.Dir(path)) + ".golden" }

// ByFileName names a golden file after the output file: ".../zz_generated.install.go" -> "zz_generated.install.go.golden".
func ByFileName(path string) string { return filepath.Base(path) + ".golden" }
