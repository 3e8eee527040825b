package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/output"
)

// pass is the result of one load-and-generate pass, shared by generate and verify.
type pass struct {
	api *model.API
	// files is every generated file, absolute path -> content; origin names the generator
	// of each.
	files  map[string][]byte
	origin map[string]string
	start  time.Time
}

// owned returns the directories whose zz_generated.*.go files apigen owns: every API
// package directory and every group's install directory.
func (p *pass) owned() []string {
	var dirs []string
	for _, pkg := range p.api.Packages {
		dirs = append(dirs, pkg.Dir)
	}
	for _, g := range p.api.Groups {
		dirs = append(dirs, g.InstallDir)
	}
	return dirs
}

// kinds counts the kinds of every served version.
func (p *pass) kinds() int {
	n := 0
	for _, g := range p.api.Groups {
		for _, v := range g.Versions {
			n += len(v.Kinds)
		}
	}
	return n
}

// runGenerators loads patterns once and runs every generator. All diagnostics of the pass
// (load and generators) are printed to stderr, sorted; any error among them returns
// exitError{1} and no files.
func runGenerators(patterns []string, stderr io.Writer) (*pass, error) {
	p := &pass{start: time.Now(), files: map[string][]byte{}, origin: map[string]string{}}
	api, err := load.Load("", patterns...)
	var diags model.Diagnostics
	if err != nil && !errors.As(err, &diags) {
		fmt.Fprintf(stderr, "apigen: %v\n", err)
		return nil, exitError{exitFailure}
	}
	if !diags.HasErrors() {
		p.api = api
		diags = append(diags, p.generate()...)
	}
	diags.Sort()
	for _, d := range diags {
		fmt.Fprintln(stderr, d.String())
	}
	if diags.HasErrors() {
		fmt.Fprintf(stderr, "apigen: %d error(s); nothing written\n", countErrors(diags))
		return nil, exitError{exitFailure}
	}
	return p, nil
}

// generate runs every generator on p.api and merges their files; a generator's failure
// and two generators writing one path become diagnostics.
func (p *pass) generate() model.Diagnostics {
	var diags model.Diagnostics
	for _, g := range allGenerators() {
		files, err := g.Generate(p.api)
		var gd model.Diagnostics
		switch {
		case errors.As(err, &gd):
			diags = append(diags, gd...)
		case err != nil:
			diags = append(diags, model.Diagnostic{Pos: model.Position{File: "apigen"},
				Message: fmt.Sprintf("generator %s: %v", g.Name(), err)})
		}
		for path, content := range files {
			if prev, ok := p.origin[path]; ok {
				diags = append(diags, model.Diagnostic{Pos: model.Position{File: relPath(path)},
					Message: fmt.Sprintf("generators %s and %s both write this file", prev, g.Name())})
			}
			p.files[path], p.origin[path] = content, g.Name()
		}
	}
	return diags
}

func countErrors(diags model.Diagnostics) int {
	n := 0
	for _, d := range diags {
		if !d.Warning {
			n++
		}
	}
	return n
}

func newGenerateCommand() *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "generate [packages]",
		Short: "Write every zz_generated.*.go file of the API packages",
		Long: `generate loads the packages (go list patterns, default ./...) once, runs every
generator and writes the files whose bytes changed. Stale zz_generated.*.go files that no
generator produced are deleted from the API package and install directories. When any
diagnostic is an error, all are printed (file:line:col: message) and nothing is written.`,
		Example: `  apigen generate ./...
  apigen generate -v ./apis/...

  # In a go:generate directive, with apigen as a go.mod tool:
  //go:generate go tool apigen generate ./...`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return generate(patternsOrDefault(args), verbose, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list every generated file and what happened to it")
	return cmd
}

func generate(patterns []string, verbose bool, stdout, stderr io.Writer) error {
	p, err := runGenerators(patterns, stderr)
	if err != nil {
		return err
	}
	res, err := output.Write(p.files, p.owned())
	if err != nil {
		fmt.Fprintf(stderr, "apigen: %v\n", err)
		return exitError{exitFailure}
	}
	if verbose {
		printResult(stdout, p, res)
	}
	changed := len(res.Changed)
	summary := fmt.Sprintf("apigen: generated %d files (%d changed) for %d packages, %d kinds in %.2fs",
		len(p.files), changed, len(p.api.Packages), p.kinds(), time.Since(p.start).Seconds())
	if len(res.Deleted) > 0 {
		summary += fmt.Sprintf("; deleted %d stale files", len(res.Deleted))
	}
	fmt.Fprintln(stdout, summary)
	return nil
}

// printResult lists each file with what happened to it and the generator that made it.
func printResult(w io.Writer, p *pass, res output.Result) {
	type line struct{ path, text string }
	var lines []line
	for _, f := range res.Changed {
		lines = append(lines, line{f, fmt.Sprintf("  wrote      %s (%s)", relPath(f), p.origin[f])})
	}
	for _, f := range res.Unchanged {
		lines = append(lines, line{f, fmt.Sprintf("  unchanged  %s (%s)", relPath(f), p.origin[f])})
	}
	for _, f := range res.Deleted {
		lines = append(lines, line{f, fmt.Sprintf("  deleted    %s", relPath(f))})
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].path < lines[j].path })
	for _, l := range lines {
		fmt.Fprintln(w, l.text)
	}
}

func newVerifyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "verify [packages]",
		Short: "Check that every zz_generated.*.go file is up to date",
		Long: `verify runs the same pass as generate but writes nothing: it prints a unified diff
for every generated file that is stale, missing, or no longer produced, and exits 1 if
there is any. Use it in CI.`,
		Example: `  apigen verify ./...`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return verify(patternsOrDefault(args), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
}

func verify(patterns []string, stdout, stderr io.Writer) error {
	p, err := runGenerators(patterns, stderr)
	if err != nil {
		return err
	}
	diffs, err := output.Diff(p.files, p.owned())
	if err != nil {
		fmt.Fprintf(stderr, "apigen: %v\n", err)
		return exitError{exitFailure}
	}
	if len(diffs) == 0 {
		fmt.Fprintf(stdout, "apigen: %d generated files up to date\n", len(p.files))
		return nil
	}
	var names []string
	for _, d := range diffs {
		fmt.Fprint(stdout, d.Unified)
		names = append(names, fmt.Sprintf("  %s (%s)", relPath(d.Path), d.Status))
	}
	fmt.Fprintf(stderr, "apigen: %d generated files are out of date; run apigen generate:\n%s\n",
		len(diffs), strings.Join(names, "\n"))
	return exitError{exitFailure}
}

func patternsOrDefault(args []string) []string {
	if len(args) == 0 {
		return []string{"./..."}
	}
	return args
}

// relPath returns path relative to the working directory when it is below it.
func relPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
