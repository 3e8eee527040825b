package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
)

// Load loads the package at pattern (from the repository root, e.g.
// "./generators/jsoncodec/testdata/shapes/v1") with the real loader, for a generator's test
// run from its package directory two levels below the root. A load error that is more than
// warnings fails t.
func Load(t *testing.T, pattern string) *model.API {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	api, err := load.Load(root, pattern)
	if ds, ok := err.(model.Diagnostics); err != nil && (!ok || ds.HasErrors()) {
		t.Fatalf("cannot load %s: %v", pattern, err)
	}
	return api
}

// LoadShared is Load for tests that only read the model: the first call for a pattern loads
// it, and every later call in the test binary returns the same *model.API (a load is a `go
// list` and a type-check, a second or more each). A test that changes the model, or that
// compares two loads, calls Load.
func LoadShared(t *testing.T, pattern string) *model.API {
	t.Helper()
	return Shared(t, "load of "+pattern, func() *model.API { return Load(t, pattern) })
}

// Shared returns what make returns, made once per test binary for key by the first test that
// asks (make may fail that test) and returned to every later one; a later test fails when
// the first could not make it. What it returns is shared: callers must not change it.
func Shared[T any](t *testing.T, key string, make func() T) T {
	t.Helper()
	v, _ := shared.LoadOrStore(key, &sharedValue{})
	s := v.(*sharedValue)
	s.once.Do(func() {
		s.value = make()
		s.ok = true
	})
	if !s.ok {
		t.Fatalf("no %s: making it failed, in another test", key)
	}
	return s.value.(T)
}

// shared holds Shared's values, by key.
var shared sync.Map

// sharedValue is one key's value; ok is false when making it failed.
type sharedValue struct {
	once  sync.Once
	value any
	ok    bool
}

// CheckInPlace compares the one file a generator returned, for the absolute path, with the
// file committed there, which a test of the generated code compiles (with -update it is
// rewritten first), and returns the generated content. Other returned files fail t.
func CheckInPlace(t *testing.T, files map[string][]byte, path string) string {
	t.Helper()
	got, ok := files[path]
	if len(files) != 1 || !ok {
		t.Fatalf("Generate returned %d files, want only %s", len(files), path)
	}
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read the committed file (run go test -update): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
	return string(got)
}

// CheckCommitted compares files (content keyed by absolute path) with the committed files
// at those paths; with -update it writes them instead. A stale or missing file fails t with
// the command that regenerates it.
func CheckCommitted(t *testing.T, files map[string][]byte, regenerate string) {
	t.Helper()
	for path, want := range files {
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%v): run %s", path, err, regenerate)
		}
	}
}
