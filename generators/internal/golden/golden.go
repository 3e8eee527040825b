// Package golden compares generated files with golden files under a generator's testdata/,
// or rewrites them when the test runs with -update, as cmd/stringer's golden tests do.
package golden

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Check compares files (generated content keyed by absolute output path) with the golden
// files in dir, one per generated file, named by name(outputPath) (e.g. "v1.golden"). The set
// of golden files must equal the set generated. With update, dir is emptied and rewritten
// instead. Differences are reported with t.Errorf as "-want +got" diffs.
func Check(t *testing.T, dir string, files map[string][]byte, name func(path string) string, update bool) {
	t.Helper()
	if update {
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
		if update {
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
