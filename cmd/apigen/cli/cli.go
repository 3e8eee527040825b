package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/generators"
	"github.com/apigen-dev/apigen/generators/emit"
)

// Exit codes Run returns.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// allGenerators returns the generators a run uses; tests replace it to exercise the
// write/verify flow with a generator of their own.
var allGenerators func() []emit.Generator = generators.All

// exitError carries an exit code out of a cobra command whose message is already printed.
type exitError struct{ code int }

// Error reports the exit code; Run never prints it.
func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// Run runs apigen with args (without the program name), printing results to stdout and
// diagnostics to stderr, and returns the process exit code: 0 on success, 1 when the run
// found problems (diagnostics, stale files, I/O errors), 2 on a usage error.
func Run(args []string, stdout, stderr io.Writer) int {
	root := newRootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	var ee exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintf(stderr, "apigen: %v\nRun 'apigen --help' for usage.\n", err)
		return exitUsage
	}
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "apigen",
		Short: "Generate Kubernetes-style API servers from annotated Go types",
		Long: `apigen turns marker-annotated Kubernetes-style Go API types into a Kubernetes-style
API server backed by etcd. It writes zz_generated.*.go files next to the types (and
typed clients and CustomResourceDefinitions beside the apis directory) and checks in CI
that they are up to date.`,
		Example: `  # Start a new API repository and add a kind:
  apigen init example.com/shop && cd shop
  go tool apigen create api --group shop.example.com --version v1 --kind Order

  # Regenerate every zz_generated file of the module (as go generate does):
  apigen generate ./...

  # Fail CI when a generated file is stale or missing:
  apigen verify ./...`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newInitCommand(), newCreateCommand(), newGenerateCommand(), newVerifyCommand(), newMarkersCommand(), newVersionCommand())
	return root
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print apigen's version",
		Example: "  apigen version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "apigen %s\n", version())
			return nil
		},
	}
}

// version is the main module's version from the build info: a tag such as v0.3.0 when
// installed with go install, a pseudo-version, or "(devel)" in a source tree.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}
