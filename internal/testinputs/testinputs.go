// Package testinputs keeps go test's result cache honest for tests that build this module's
// code in a child process: `go build` of a server they then run, `go test` of a generated
// tree, a scaffolded repository that requires this checkout.
//
// go test caches a package's result under its test binary and the files that the test
// process itself opened or stat'ed (go help testflag, "cacheable"). Code that a child process
// compiles is neither: without more, changing runtime/storage/etcd3 leaves the cached pass of
// example-api/e2e in place although every server it starts contains the change, and a warm
// `make test` reports a pass it never ran. Declare closes the gap by opening the directory of
// every package of this module that the child builds: go test records the directories in its
// test log, hashes each one's listing (every file's name, size and modification time), and
// reruns the test when any of them changes.
package testinputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// declared are the pattern lists Declare has already declared in this process (test log
// entries last for the whole test binary run, so once is enough).
var declared sync.Map

// Declare makes the cached result of the calling test depend on every package of this module
// that `go build patterns...` compiles (patterns as for go build, relative to the module root,
// e.g. "./cmd/apigen" or "./runtime/..."; import paths work too). It runs `go list -deps` once
// per pattern list and process, about a second, and fails tb when that fails. Call it from the
// test, not from TestMain: go test records opened files only while tests run.
func Declare(tb testing.TB, patterns ...string) {
	tb.Helper()
	key := fmt.Sprint(patterns)
	if _, done := declared.Load(key); done {
		return
	}
	dirs, err := packageDirs(patterns)
	if err != nil {
		tb.Fatalf("cannot declare the packages a child process builds as test inputs: %v", err)
	}
	for _, dir := range dirs {
		f, err := os.Open(dir)
		if err != nil {
			tb.Fatalf("cannot declare %s as a test input: %v", dir, err)
		}
		f.Close()
	}
	declared.Store(key, true)
}

// packageDirs returns the directories of the main module's packages among patterns and their
// dependencies, as go list reports them from the module root.
func packageDirs(patterns []string) ([]string, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json=Dir,Module"}, patterns...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %v: %v\n%s", patterns, err, stderr.Bytes())
	}
	var dirs []string
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p struct {
			Dir    string
			Module *struct{ Main bool }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return dirs, nil
		} else if err != nil {
			return nil, fmt.Errorf("go list -deps %v: %v", patterns, err)
		}
		if p.Module != nil && p.Module.Main {
			dirs = append(dirs, p.Dir)
		}
	}
}

// moduleRoot is the directory of the go.mod above this file (tests may have changed their
// working directory, so it is found from the source, not from it).
func moduleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", errors.New("the source path of package testinputs is unknown (built with -trimpath?)")
	}
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if dir == filepath.Dir(dir) {
			return "", fmt.Errorf("no go.mod above %s", file)
		}
	}
}
