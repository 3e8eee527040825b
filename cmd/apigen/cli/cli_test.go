package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/emit"
	"github.com/apigen-dev/apigen/generators/model"
)

// moduleRoot is the apigen module's directory, relative to this package.
const moduleRoot = "../../.."

const fixturePrefix = "github.com/apigen-dev/apigen/generators/testdata/load/"

// setupFixture copies generators/testdata/load/<name> into a new module in t.TempDir()
// (go.mod and go.sum from apigen's, imports rewritten to example.com/fixture) and makes
// it the working directory.
func setupFixture(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(moduleRoot, "generators/testdata/load", name)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		data = bytes.ReplaceAll(data, []byte(fixturePrefix+name), []byte("example.com/fixture"))
		rel, _ := filepath.Rel(src, path)
		return writeFile(filepath.Join(dir, rel), data)
	})
	if err != nil {
		t.Fatalf("cannot copy fixture %s: %v", name, err)
	}
	gomod, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gomod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module example.com/fixture"))
	gosum, err := os.ReadFile(filepath.Join(moduleRoot, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(dir, "go.mod"), gomod); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(dir, "go.sum"), gosum); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// fakeGenerator writes zz_generated.fake.go into every API package and install directory,
// listing the local types and their fields, so that editing a type changes its output.
type fakeGenerator struct{ diags model.Diagnostics }

func (fakeGenerator) Name() string { return "fake" }

func (g fakeGenerator) Generate(api *model.API) (map[string][]byte, error) {
	if len(g.diags) > 0 {
		return nil, g.diags
	}
	files := map[string][]byte{}
	for _, p := range api.Packages {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n\npackage %s\n\n", emit.Header, p.Name)
		for _, t := range p.Types {
			fmt.Fprintf(&b, "// %s:", t.Name.Name)
			for _, f := range t.Fields {
				fmt.Fprintf(&b, " %s", f.JSONName)
			}
			b.WriteString("\n")
		}
		files[filepath.Join(p.Dir, "zz_generated.fake.go")] = []byte(b.String())
	}
	for _, gr := range api.Groups {
		files[filepath.Join(gr.InstallDir, "zz_generated.fake.go")] = []byte(emit.Header + "\n\npackage install\n")
	}
	return files, nil
}

// useGenerators makes Run use gens for the rest of the test.
func useGenerators(t *testing.T, gens ...emit.Generator) {
	prev := allGenerators
	allGenerators = func() []emit.Generator { return gens }
	t.Cleanup(func() { allGenerators = prev })
}

// run runs the CLI in-process and returns its exit code and output.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// snapshot returns every zz_generated file under dir, relative path -> content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "zz_generated.") {
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
