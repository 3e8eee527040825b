package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/generators"
	"github.com/apigen-dev/apigen/generators/compat"
	"github.com/apigen-dev/apigen/generators/compat/compatmarkers"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/output"
)

// pass is one run of the generators (generators.Run) and when it started.
type pass struct {
	*generators.Pass
	start time.Time
}

// runOptions are the flags generate and verify share.
type runOptions struct {
	// verbose lists every file and what happened to it.
	verbose bool
	// strict treats warnings (an unknown marker, a marker apigen cannot honour) as errors.
	strict bool
}

// addFlags registers o's flags on cmd.
func (o *runOptions) addFlags(cmd *cobra.Command, verboseHelp string) {
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, verboseHelp)
	cmd.Flags().BoolVar(&o.strict, "strict", false, "treat warnings (unknown markers, markers apigen cannot honour) as errors")
}

// runGenerators runs generators.Run on patterns. All diagnostics of the pass (load and
// generators) are printed to stderr, sorted; any error among them (any warning too when
// strict), or patterns matching no API package, returns exitError{1} and no files.
func runGenerators(patterns []string, strict bool, stderr io.Writer) (*pass, error) {
	start := time.Now()
	gp, err := generators.Run("", patterns, allGenerators())
	if err != nil {
		fmt.Fprintf(stderr, "apigen: %v\n", err)
		return nil, exitError{exitFailure}
	}
	for _, d := range gp.Diagnostics {
		d.Pos.File = relPath(d.Pos.File)
		fmt.Fprintln(stderr, d.String())
	}
	if gp.Diagnostics.HasErrors() {
		fmt.Fprintf(stderr, "apigen: %d error(s); nothing written\n", countErrors(gp.Diagnostics))
		return nil, exitError{exitFailure}
	}
	if warnings := len(gp.Diagnostics) - countErrors(gp.Diagnostics); strict && warnings > 0 {
		fmt.Fprintf(stderr, "apigen: %d warning(s), errors under --strict; nothing written\n", warnings)
		return nil, exitError{exitFailure}
	}
	if len(gp.API.Packages) == 0 {
		fmt.Fprintln(stderr, noAPIPackages(patterns, gp.API.Matched))
		return nil, exitError{exitFailure}
	}
	return &pass{Pass: gp, start: start}, nil
}

// noAPIPackages is the error of a run whose patterns matched packages of which none is an
// API package: it says where apigen looked and which marker makes an API package.
func noAPIPackages(patterns []string, matched int) string {
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	return fmt.Sprintf(`apigen: no API package in %s (%d packages matched, looked in %s): an API package has a
+groupName=<group> marker in its package comment, e.g. in doc.go:
    // +groupName=shop.example.com
    package v1
Run apigen from the directory above your API packages, or pass their pattern
(apigen generate ./pkg/apis/...); apigen create api writes a new group with the marker.`,
		strings.Join(patterns, " "), matched, wd)
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
	var opts runOptions
	cmd := &cobra.Command{
		Use:   "generate [packages]",
		Short: "Write every zz_generated.*.go file of the API packages, their clients and CRDs",
		Long: `generate loads the packages (go list patterns, default ./...) once, runs every
generator and writes the files whose bytes changed: zz_generated.*.go files, the typed
clients of +genclient kinds (<root>/pkg/generated) and a CustomResourceDefinition per
resource (<root>/config/crd/<group>_<plural>.yaml). Stale generated files that no generator
produced are deleted from the API package and install directories, the clients' tree and
the groups' CRDs (run by go generate, which has listed the Go ones and would fail reading
them, it empties a stale Go file instead: the build ignores it, verify does not count it,
and the next run deletes it). When any diagnostic is an error, all are printed
(file:line:col: message) and nothing is written; warnings are printed and the run goes on,
unless --strict.`,
		Example: `  apigen generate ./...
  apigen generate -v ./apis/...

  # In a go:generate directive, with apigen as a go.mod tool:
  //go:generate go tool apigen generate ./...`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return generate(patternsOrDefault(args), opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	opts.addFlags(cmd, "list every generated file and what happened to it")
	return cmd
}

func generate(patterns []string, opts runOptions, stdout, stderr io.Writer) error {
	p, err := runGenerators(patterns, opts.strict, stderr)
	if err != nil {
		return err
	}
	res, err := output.Write(p.Files, p.Owned(), output.RemovalOfProcess())
	if err != nil {
		fmt.Fprintf(stderr, "apigen: %v\n", err)
		return exitError{exitFailure}
	}
	if opts.verbose {
		printResult(stdout, p, res)
	}
	summary := fmt.Sprintf("apigen generate: %d packages, %d kinds, %d files written, %d unchanged",
		len(p.API.Packages), p.Kinds(), len(res.Changed), len(res.Unchanged))
	if len(res.Deleted) > 0 {
		summary += fmt.Sprintf(", %d stale deleted", len(res.Deleted))
	}
	if len(res.Tombstoned) > 0 {
		summary += fmt.Sprintf(", %d stale emptied for deletion by the next run (go generate had listed them)", len(res.Tombstoned))
	}
	fmt.Fprintf(stdout, "%s in %dms\n", summary, time.Since(p.start).Milliseconds())
	return nil
}

// printResult lists each file with what happened to it and the generator that made it.
func printResult(w io.Writer, p *pass, res output.Result) {
	type line struct{ path, text string }
	var lines []line
	for _, f := range res.Changed {
		lines = append(lines, line{f, fmt.Sprintf("  wrote      %s (%s)", relPath(f), p.Origin[f])})
	}
	for _, f := range res.Unchanged {
		lines = append(lines, line{f, fmt.Sprintf("  unchanged  %s (%s)", relPath(f), p.Origin[f])})
	}
	for _, f := range res.Deleted {
		lines = append(lines, line{f, fmt.Sprintf("  deleted    %s", relPath(f))})
	}
	for _, f := range res.Tombstoned {
		lines = append(lines, line{f, fmt.Sprintf("  emptied    %s (//go:build ignore; the next run deletes it)", relPath(f))})
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].path < lines[j].path })
	for _, l := range lines {
		fmt.Fprintln(w, l.text)
	}
}

func newVerifyCommand() *cobra.Command {
	var opts runOptions
	var against againstOptions
	cmd := &cobra.Command{
		Use:   "verify [packages]",
		Short: "Check that every generated file (Go, clients, CRDs) is up to date",
		Long: `verify runs the same pass as generate but writes nothing: it prints a unified diff
for every generated file that is stale, missing, or no longer produced, and exits 1 if
there is any. Use it in CI.

With --against <git ref>, verify also loads the API packages as they are at the ref (from
git, leaving the working tree alone) and reports every change per group, version, kind
and field, at the file:line of the new declaration (or of the removed one, as it was at
the ref), with a severity and a reason after Kubernetes' API change guidelines:
breaking (exit 1), needs-migration (a storage version switch: deploy, then create a
StorageVersionMigration) or additive. What a marker means is what it means in a CRD: the
effective validation is compared, whatever the marker's spelling. A breaking change is
accepted, by name, by +apigen:allow-breaking=<name> on its field, on its type, or on its
version's package, or everywhere by --allow <name>. The names:
` + breakingNames() + `.`,
		Example: `  apigen verify ./...
  apigen verify -v ./apis/...

  # In CI, with apigen as a go.mod tool:
  go tool apigen verify ./...

  # In CI of a pull request: also fail on a breaking change against its base branch
  go tool apigen verify --against origin/main ./...
  go tool apigen verify --against origin/main --allow field-removed --output json ./...`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := against.validate(cmd); err != nil {
				return err
			}
			if against.against != "" {
				// A ref git cannot resolve fails before the generators' pass.
				if _, err := compat.Resolve("", against.against); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "apigen verify --against %s: %v\n", against.against, err)
					return exitError{exitFailure}
				}
			}
			return verify(patternsOrDefault(args), opts, against, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	opts.addFlags(cmd, "list every generated file checked and whether it is up to date")
	against.addFlags(cmd)
	return cmd
}

func verify(patterns []string, opts runOptions, against againstOptions, stdout, stderr io.Writer) error {
	if against.against != "" {
		// The API at the ref loads while the generators' pass runs.
		base := against.loadBaseline(patterns)
		defer func() {
			if b, err := base(); err == nil {
				b.Close()
			}
		}()
		against.base = base
	}
	p, err := runGenerators(patterns, opts.strict, stderr)
	if err != nil {
		return err
	}
	diffs, err := output.Diff(p.Files, p.Owned())
	if err != nil {
		fmt.Fprintf(stderr, "apigen: %v\n", err)
		return exitError{exitFailure}
	}
	out := stdout
	if against.against != "" && against.output == "json" {
		out = stderr // stdout holds the JSON document only
	}
	summary := fmt.Sprintf("apigen verify: %d packages, %d kinds, %d files checked", len(p.API.Packages), p.Kinds(), len(p.Files))
	status := map[string]string{}
	for _, d := range diffs {
		status[d.Path] = string(d.Status)
	}
	if opts.verbose {
		var lines []string
		for path := range p.Files {
			st := status[path]
			if st == "" {
				st = "up to date"
			}
			lines = append(lines, fmt.Sprintf("  %-10s %s (%s)", st, relPath(path), p.Origin[path]))
		}
		sort.Strings(lines)
		fmt.Fprintln(out, strings.Join(lines, "\n"))
	}
	failed := false
	if len(diffs) == 0 {
		fmt.Fprintf(out, "%s, all up to date in %dms\n", summary, time.Since(p.start).Milliseconds())
	} else {
		var names []string
		for _, d := range diffs {
			fmt.Fprint(out, d.Unified)
			names = append(names, fmt.Sprintf("  %s (%s)", relPath(d.Path), d.Status))
		}
		fmt.Fprintf(stderr, "%s, %d out of date in %dms; run apigen generate:\n%s\n",
			summary, len(diffs), time.Since(p.start).Milliseconds(), strings.Join(names, "\n"))
		failed = true
	}
	if against.against != "" && against.check(p.API, diffs, stdout, stderr) {
		failed = true
	}
	if failed {
		return exitError{exitFailure}
	}
	return nil
}

// breakingNames lists the names of the breaking changes --allow and +apigen:allow-breaking
// take, comma-separated, in lines of at most 88 characters.
func breakingNames() string {
	names := make([]string, len(compatmarkers.Breaking))
	for i, b := range compatmarkers.Breaking {
		names[i] = b.Name
	}
	var lines []string
	line := ""
	for i, name := range names {
		if i < len(names)-1 {
			name += ","
		}
		if line != "" && len(line)+1+len(name) > 88 {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += name
	}
	return strings.Join(append(lines, line), "\n")
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
