package testinputs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDeclaredPackagesInvalidateTheCache runs go test three times in a scratch module whose
// package a declares package b (which its test binary does not import) and whose package c
// declares nothing: after a change to b, a's cached result is gone and c's is not, which is
// what go test would do for a without Declare.
func TestDeclaredPackagesInvalidateTheCache(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test in a scratch module")
	}
	t.Parallel()
	src, err := os.ReadFile("testinputs.go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                   "module example.com/m\n\ngo 1.24\n",
		"testinputs/testinputs.go": string(src),
		"b/b.go":                   "package b\n\n// X is built by a child process of a's test.\nconst X = 1\n",
		"a/a_test.go": "package a\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/testinputs\"\n)\n\n" +
			"func TestA(t *testing.T) { testinputs.Declare(t, \"./b\") }\n",
		"c/c_test.go": "package c\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) {}\n",
	}
	for name, content := range files {
		write(t, filepath.Join(dir, name), content)
	}
	goTest := func() map[string]bool {
		t.Helper()
		cmd := exec.Command("go", "test", "./a", "./c")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go test: %v\n%s", err, out)
		}
		cached := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^ok\s+example\.com/m/(\w+)\s+(.*)$`).FindAllStringSubmatch(string(out), -1) {
			cached[m[1]] = strings.Contains(m[2], "(cached)")
		}
		if len(cached) != 2 {
			t.Fatalf("go test printed no result for a and c:\n%s", out)
		}
		return cached
	}
	goTest()
	if got := goTest(); !got["a"] || !got["c"] {
		t.Fatalf("second run: cached = %v, want both cached (nothing changed)", got)
	}
	write(t, filepath.Join(dir, "b/b.go"), files["b/b.go"]+"\n// Y changes b.\nconst Y = 2\n")
	if got := goTest(); got["a"] || !got["c"] {
		t.Fatalf("after changing b: cached = %v, want a run again (it declared b) and c cached", got)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
