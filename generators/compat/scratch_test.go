package compat_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// moduleRoot is the apigen module's directory, relative to this package.
const moduleRoot = "../.."

// scratchRepo makes a git repository in t.TempDir() holding a module example.com/compat
// (go.mod and go.sum from apigen's, so that the same dependencies resolve) with the tree of
// testdata/<tree> committed, and returns its directory.
func scratchRepo(t *testing.T, tree string) string {
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
	gomod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module example.com/compat"))
	write(t, filepath.Join(dir, "go.mod"), gomod)
	write(t, filepath.Join(dir, "go.sum"), gosum)
	gitIn(t, dir, "init", "-q")
	commitTree(t, dir, tree, "base")
	return dir
}

// commitTree replaces the repository's apis directory with testdata/<tree>/apis and commits.
func commitTree(t *testing.T, dir, tree, message string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, "apis")); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", tree)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		write(t, filepath.Join(dir, rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", message)
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitIn runs git in dir as a test author.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=apigen test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
