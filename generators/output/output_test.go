package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnifiedDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	new := "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"
	want := `--- a/x.go
+++ b/x.go
@@ -1,6 +1,6 @@
 a
 b
-c
+C
 d
 e
 f
@@ -9,3 +9,4 @@
 i
 j
 k
+l
`
	if diff := cmp.Diff(want, UnifiedDiff("a/x.go", "b/x.go", []byte(old), []byte(new))); diff != "" {
		t.Errorf("UnifiedDiff() mismatch (-want +got):\n%s", diff)
	}
	if got := UnifiedDiff("a", "b", []byte(old), []byte(old)); got != "" {
		t.Errorf("UnifiedDiff(equal) = %q, want empty", got)
	}
	wantNew := "--- /dev/null\n+++ b/x.go\n@@ -0,0 +1,2 @@\n+x\n+y\n"
	if diff := cmp.Diff(wantNew, UnifiedDiff("/dev/null", "b/x.go", nil, []byte("x\ny\n"))); diff != "" {
		t.Errorf("UnifiedDiff(new file) mismatch (-want +got):\n%s", diff)
	}
	wantNoEOL := "--- a\n+++ b\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n"
	if diff := cmp.Diff(wantNoEOL, UnifiedDiff("a", "b", []byte("x"), []byte("x\n"))); diff != "" {
		t.Errorf("UnifiedDiff(no newline) mismatch (-want +got):\n%s", diff)
	}
}

// testWriteAndDiff runs the write/diff cycle against fsys rooted at dir.
func testWriteAndDiff(t *testing.T, fsys FS, dir string) {
	t.Helper()
	pkg := filepath.Join(dir, "apis", "db", "v1")
	deep := filepath.Join(pkg, "zz_generated.deepcopy.go")
	reg := filepath.Join(pkg, "zz_generated.register.go")
	stale := filepath.Join(pkg, "zz_generated.old.go")
	handWritten := filepath.Join(pkg, "types.go")
	for p, content := range map[string]string{stale: "package v1\n", handWritten: "package v1\n", reg: "package v1\n// old\n"} {
		if err := fsys.WriteFile(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string][]byte{deep: []byte("package v1\n// deepcopy\n"), reg: []byte("package v1\n// new\n")}

	diffs, err := DiffFS(fsys, files, []string{pkg})
	if err != nil {
		t.Fatalf("DiffFS() error = %v", err)
	}
	var got []string
	for _, d := range diffs {
		got = append(got, filepath.Base(d.Path)+" "+string(d.Status))
		if !strings.Contains(d.Unified, filepath.Base(d.Path)) {
			t.Errorf("diff of %s does not name the file:\n%s", d.Path, d.Unified)
		}
	}
	wantDiffs := []string{"zz_generated.deepcopy.go missing", "zz_generated.old.go extra", "zz_generated.register.go stale"}
	if diff := cmp.Diff(wantDiffs, got); diff != "" {
		t.Errorf("DiffFS() mismatch (-want +got):\n%s", diff)
	}

	res, err := WriteFS(fsys, files, []string{pkg})
	if err != nil {
		t.Fatalf("WriteFS() error = %v", err)
	}
	wantRes := Result{Changed: []string{deep, reg}, Deleted: []string{stale}}
	if diff := cmp.Diff(wantRes, res); diff != "" {
		t.Errorf("WriteFS() mismatch (-want +got):\n%s", diff)
	}
	if _, err := fsys.ReadFile(handWritten); err != nil {
		t.Errorf("hand-written file was touched: %v", err)
	}
	if b, _ := fsys.ReadFile(reg); string(b) != "package v1\n// new\n" {
		t.Errorf("%s = %q after WriteFS", reg, b)
	}

	res, err = WriteFS(fsys, files, []string{pkg})
	if err != nil {
		t.Fatalf("second WriteFS() error = %v", err)
	}
	if diff := cmp.Diff(Result{Unchanged: []string{deep, reg}}, res); diff != "" {
		t.Errorf("second WriteFS() mismatch (-want +got):\n%s", diff)
	}
	if diffs, err := DiffFS(fsys, files, []string{pkg}); err != nil || len(diffs) != 0 {
		t.Errorf("DiffFS() after write = %v, %v; want none", diffs, err)
	}
}

func TestWriteDisk(t *testing.T) {
	dir := t.TempDir()
	testWriteAndDiff(t, Disk{}, dir)
	fi, err := os.Stat(filepath.Join(dir, "apis", "db", "v1", "zz_generated.deepcopy.go"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "apis", "db", "v1", ".apigen-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestWriteMemFS(t *testing.T) {
	testWriteAndDiff(t, NewMemFS(nil), "/src")
}

func TestWriteRejectsRelativePaths(t *testing.T) {
	_, err := WriteFS(NewMemFS(nil), map[string][]byte{"rel/zz_generated.x.go": nil}, nil)
	if err == nil || !strings.Contains(err.Error(), "must be absolute") {
		t.Errorf("WriteFS(relative) error = %v, want 'must be absolute'", err)
	}
}
