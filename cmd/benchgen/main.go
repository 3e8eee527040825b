package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"text/tabwriter"
	"time"
)

// tree is one set of API packages benchgen times.
type tree struct {
	// name labels the tree in the report; dir is its directory relative to the module root,
	// and dir + "/..." its go list pattern.
	name string
	dir  string
}

// pattern returns the tree's go list pattern, relative to the module root.
func (t tree) pattern() string { return "./" + t.dir + "/..." }

// trees are the measured trees, in report order.
var trees = []tree{
	{name: "example-api", dir: "example-api/apis"},
	{name: "codegen", dir: "generators/testdata/corpus/codegen"},
	{name: "kubebuilder", dir: "generators/testdata/corpus/kubebuilder"},
	{name: "clients", dir: "generators/testdata/corpus/clients"},
}

// The generator's speed targets: apigen at most targetRatio times a bare go/packages load.
const (
	targetRatio = 1.5
	targetFull  = time.Second
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args, measures and prints the report to stdout; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 5, "runs of each measurement; the best is reported")
	tools := fs.Bool("tools", true, "also install and time code-generator and controller-gen")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the measured runs to `file`")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *n < 1 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "benchgen: -n must be at least 1 and no arguments are taken")
		return 2
	}
	if err := measure(stdout, *n, *tools, *cpuprofile); err != nil {
		fmt.Fprintf(stderr, "benchgen: %v\n", err)
		return 1
	}
	return 0
}

// measure copies the trees to a temporary module, makes it the working directory, times
// apigen and the bare load there and then, when tools is set, the third-party generators,
// printing the report to w. The working directory is restored before it returns.
func measure(w io.Writer, n int, tools bool, cpuprofile string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "benchgen-")
	if err != nil {
		return fmt.Errorf("cannot create a temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	if err := copyTrees(root, src); err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("cannot get the working directory: %w", err)
	}
	if err := os.Chdir(src); err != nil {
		return fmt.Errorf("cannot enter the copy of the trees: %w", err)
	}
	defer os.Chdir(wd)
	stop, err := startProfile(cpuprofile)
	if err != nil {
		return err
	}
	results, err := measureApigen(src, n)
	stop()
	if err != nil {
		return err
	}
	printApigen(w, results, n)
	if tools {
		fmt.Fprintln(w)
		measureTools(w, tmp, src, results, n)
	}
	return nil
}

// moduleRoot returns the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("cannot find the module root: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("cannot find the module root: run benchgen inside the apigen module")
	}
	return filepath.Dir(gomod), nil
}

// startProfile starts a CPU profile into path ("" for none) and returns the function that
// stops it.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot create CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot start CPU profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// printApigen prints the apigen/bare table and the verdict on the targets.
func printApigen(w io.Writer, results []apigenResult, n int) {
	fmt.Fprintf(w, "apigen generate (in-process, on a copy of the trees) vs a bare go/packages load of the same packages; best of %d warm runs\n", n)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "tree\tpattern\tpackages\tfiles\tbare load\tapigen load\tapigen\tapigen/bare")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%.2fx\n", r.tree.name, r.tree.pattern(), r.packages, r.files,
			ms(r.bare), ms(r.load), ms(r.apigen), ratio(r.apigen, r.bare))
	}
	tw.Flush()
	fmt.Fprintln(w, "(apigen load: load.Load alone, the bare load plus building the model; apigen: the whole generate run)")
	for _, r := range results {
		verdict := "ok"
		if ratio(r.apigen, r.bare) > targetRatio || r.apigen > targetFull {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "%s: apigen/bare %.2fx (target <= %.1fx), full regeneration %s (target < %s): %s\n",
			r.tree.name, ratio(r.apigen, r.bare), targetRatio, ms(r.apigen), ms(targetFull), verdict)
	}
}

// ms formats d in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.0fms", float64(d)/float64(time.Millisecond)) }

// ratio returns a/b, or 0 when b is zero.
func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
