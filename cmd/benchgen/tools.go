package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Pinned versions of the third-party generators benchgen compares apigen with.
const (
	CodeGeneratorVersion   = "v0.37.2"
	ControllerToolsVersion = "v0.23.0"
)

// corpusDir is the corpus, relative to the module root.
const corpusDir = "generators/testdata/corpus"

// toolRun is one third-party generator invocation to time.
type toolRun struct {
	label string
	tree  string // the name of the tree in trees whose apigen time it is compared with
	bin   string // the binary's base name in the temporary GOBIN
	args  []string
	// client marks code-generator's client tools, totalled separately.
	client bool
}

// toolRuns returns the invocations, run in the copy of the trees, with header as the
// boilerplate file and crdDir for controller-gen's CRDs.
func toolRuns(header, crdDir string) []toolRun {
	const shop = "./" + corpusDir + "/codegen/apis/shop"
	cg := func(name, file string, pkgs ...string) toolRun {
		return toolRun{label: name + " " + CodeGeneratorVersion, tree: "codegen", bin: name,
			args: append([]string{"--output-file", file, "--go-header-file", header}, pkgs...)}
	}
	return []toolRun{
		cg("deepcopy-gen", "zz_generated.deepcopy.go", shop, shop+"/v1", shop+"/v1beta1"),
		cg("conversion-gen", "zz_generated.conversion.go", shop+"/v1", shop+"/v1beta1"),
		cg("defaulter-gen", "zz_generated.defaults.go", shop+"/v1", shop+"/v1beta1"),
		{label: "controller-gen " + ControllerToolsVersion + " object+crd", tree: "kubebuilder", bin: "controller-gen",
			args: []string{"object:headerFile=" + header, "crd", "paths=./" + corpusDir + "/kubebuilder/...",
				"output:crd:artifacts:config=" + crdDir}},
	}
}

// measureTools installs the third-party generators into tmp/bin, times them on src, the copy
// of the trees apigen was timed on, and prints their times against apigen's; every failure is
// printed and skipped.
func measureTools(w io.Writer, tmp, src string, results []apigenResult, n int) {
	bin := filepath.Join(tmp, "bin")
	installed := install(w, tmp, bin)
	header := filepath.Join(tmp, "boilerplate.go.txt")
	if err := os.WriteFile(header, []byte("// Code generated for benchgen.\n"), 0o644); err != nil {
		fmt.Fprintf(w, "third-party generators skipped: cannot write the header file: %v\n", err)
		return
	}
	apigen := map[string]time.Duration{}
	for _, r := range results {
		apigen[r.tree.name] = r.apigen
	}
	fmt.Fprintf(w, "third-party generators on the same copy; best of %d warm runs; ratio = tool / apigen on the same tree\n", n)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "tool\ttree\ttime\ttool/apigen")
	totals, clientTotals := map[string]time.Duration{}, map[string]time.Duration{}
	runs := toolRuns(header, filepath.Join(tmp, "crd"))
	for _, name := range clientTrees {
		cr, err := clientToolRuns(src, tmp, header, name)
		if err != nil {
			fmt.Fprintf(w, "client tools on %s skipped: %v\n", name, err)
			continue
		}
		runs = append(runs, cr...)
	}
	for _, tr := range runs {
		if !installed[tr.bin] {
			continue
		}
		d, err := timeTool(filepath.Join(bin, tr.bin), src, tr.args, n)
		if err != nil {
			fmt.Fprintf(tw, "%s\t%s\tfailed: %s\t\n", tr.label, tr.tree, oneLine(err))
			continue
		}
		if tr.client {
			clientTotals[tr.tree] += d
		} else if tr.tree == "codegen" {
			totals[tr.tree] += d
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2fx\n", tr.label, tr.tree, ms(d), ratio(d, apigen[tr.tree]))
	}
	if d := totals["codegen"]; d > 0 {
		fmt.Fprintf(tw, "code-generator, the 3 tools in sequence\tcodegen\t%s\t%.2fx\n", ms(d), ratio(d, apigen["codegen"]))
	}
	for _, name := range clientTrees {
		if d := clientTotals[name]; d > 0 {
			fmt.Fprintf(tw, "code-generator's client-gen + lister-gen + informer-gen + applyconfiguration-gen\t%s\t%s\t%.2fx\n",
				name, ms(d), ratio(d, apigen[name]))
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "(apigen writes more in its run than the tools together: register, openapi, install and the typed clients too)")
}

// install runs `go install` for the code-generator tools and for controller-gen into bin, in
// dir (outside any module), printing why an install failed; it returns the installed binaries
// by name.
func install(w io.Writer, dir, bin string) map[string]bool {
	installed := map[string]bool{}
	groups := [][]string{
		{"k8s.io/code-generator/cmd/deepcopy-gen@" + CodeGeneratorVersion,
			"k8s.io/code-generator/cmd/conversion-gen@" + CodeGeneratorVersion,
			"k8s.io/code-generator/cmd/defaulter-gen@" + CodeGeneratorVersion,
			"k8s.io/code-generator/cmd/client-gen@" + CodeGeneratorVersion,
			"k8s.io/code-generator/cmd/lister-gen@" + CodeGeneratorVersion,
			"k8s.io/code-generator/cmd/informer-gen@" + CodeGeneratorVersion,
			"k8s.io/code-generator/cmd/applyconfiguration-gen@" + CodeGeneratorVersion},
		{"sigs.k8s.io/controller-tools/cmd/controller-gen@" + ControllerToolsVersion},
	}
	for _, pkgs := range groups {
		cmd := exec.Command("go", append([]string{"install"}, pkgs...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(w, "cannot install %s (skipped): %v\n%s\n", strings.Join(pkgs, " "), err, tail(out, 5))
			continue
		}
		for _, p := range pkgs {
			installed[filepath.Base(p[:strings.Index(p, "@")])] = true
		}
	}
	return installed
}

// timeTool runs bin with args in dir n times and returns the best time; the first failure is
// returned with the tool's output.
func timeTool(bin, dir string, args []string, n int) (time.Duration, error) {
	var bestSoFar time.Duration
	for i := 0; i < n; i++ {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil {
			return 0, fmt.Errorf("%s: %w: %s", filepath.Base(bin), err, tail(out.Bytes(), 3))
		}
		bestSoFar = best(bestSoFar, d)
	}
	return bestSoFar, nil
}

// copyTrees copies go.mod, go.sum and every tree's directory from root to dst, keeping their
// paths, so that dst is the same module holding only the trees: apigen and the third-party
// generators may write there, and a stale generated file in the tree does not matter. The
// module's other packages the trees' hand-written files import (the runtime packages an
// install package's own REST or storage uses, example-api/storage/sqlstore) are copied too,
// their Go files only.
func copyTrees(root, dst string) error {
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := copyFile(filepath.Join(root, f), filepath.Join(dst, f)); err != nil {
			return fmt.Errorf("cannot copy %s: %w", f, err)
		}
	}
	if err := copyImported(root, dst); err != nil {
		return err
	}
	for _, t := range trees {
		err := filepath.WalkDir(filepath.Join(root, t.dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			return copyFile(path, filepath.Join(dst, rel))
		})
		if err != nil {
			return fmt.Errorf("cannot copy %s: %w", t.dir, err)
		}
	}
	return nil
}

// copyImported copies the Go files (tests aside) of every package of root's module outside
// the trees that the trees' packages depend on, as `go list -deps` lists them.
func copyImported(root, dst string) error {
	args := []string{"list", "-e", "-deps", "-f", "{{if and .Module .Module.Main}}{{.Dir}}{{end}}"}
	for _, t := range trees {
		args = append(args, t.pattern())
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("cannot list the packages the trees import: go list: %w", err)
	}
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(trees, func(t tree) bool {
			return rel == t.dir || strings.HasPrefix(rel, t.dir+string(filepath.Separator))
		}) {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if name := e.Name(); e.Type().IsRegular() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
				if err := copyFile(filepath.Join(dir, name), filepath.Join(dst, rel, name)); err != nil {
					return fmt.Errorf("cannot copy %s: %w", filepath.Join(rel, name), err)
				}
			}
		}
	}
	return nil
}

// copyFile copies the regular file src to dst, creating dst's directory.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// tail returns the last n lines of out, trimmed.
func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// oneLine returns err's message on one line.
func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " | ") }
