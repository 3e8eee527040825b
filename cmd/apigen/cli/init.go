package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/scaffold"
)

// tidyTimeout bounds the `go mod tidy` init runs.
const tidyTimeout = 10 * time.Minute

func newInitCommand() *cobra.Command {
	var opts scaffold.InitOptions
	var noTidy bool
	cmd := &cobra.Command{
		Use:   "init [<module-path>]",
		Short: "Write a new API repository that builds, generates, serves and tests out of the box",
		Long: `init writes a new API repository in --dir (default: the module path's last element):
go.mod (Go 1.26, apigen as a tool so "go tool apigen" works), apis/doc.go with the
go:generate line, cmd/<name>-apiserver (main.go, groups.go listing the API groups, and an
end-to-end test serving every kind), a Makefile (generate, verify, build, run, test), a
README, a .gitignore, a CI workflow running "go tool apigen verify ./..." and the tests,
and config/deploy: a Dockerfile and the kustomize manifests that run the server in a
Kubernetes cluster as an aggregated API server (apis.yaml, its APIServices, is rewritten by
"apigen create api"). It then runs "go mod tidy" (GOFLAGS=-mod=mod; offline with a warm module cache).

go.mod requires apigen at this binary's own version (go install
github.com/apigen-dev/apigen/cmd/apigen@<version>), with no replace. When apigen runs from
its source checkout (go build / go run in the checkout), go.mod replaces apigen with that
checkout instead, so the repository builds offline; init says which it wrote.

Without a module path, in a kubebuilder project (a PROJECT file of a go.kubebuilder.io
layout, or --dir), init adds the API server beside the project and keeps every file it has:
cmd/<projectName>-apiserver (main.go, main_test.go, groups.go, and generate.go whose
go:generate line runs "apigen generate ../../api/..."), config/apiserver (the deploy
manifests), .github/workflows/apiserver.yaml, and, appended to the project's own files,
apiserver-* targets to the Makefile, /apiserver-data/ to .gitignore and apigen to go.mod.
controller-gen keeps writing zz_generated.deepcopy.go; apigen writes the rest. Run it again
after "kubebuilder create api" to list the new group in groups.go and config/apiserver/apis.yaml.

Nothing is written if any file exists with other content.`,
		Example: `  apigen init example.com/shop
  cd shop
  go tool apigen create api --group shop.example.com --version v1 --kind Order
  go generate ./...
  make run

  cd my-kubebuilder-project
  apigen init
  make apiserver-generate apiserver-test`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Module = args[0]
			}
			if opts.Replace == "" {
				opts.Replace = scaffold.SourceCheckout()
			}
			return runInit(cmd.Context(), opts, !noTidy, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Dir, "dir", "", "directory to write the repository to (default: the module path's last element)")
	f.StringVar(&opts.Name, "name", "", "server name: the server is cmd/<name>-apiserver (default: the module path's last element)")
	f.StringVar(&opts.Replace, "apigen-replace", "", "apigen checkout to replace the apigen module with (default: this binary's checkout, if any)")
	f.BoolVar(&noTidy, "no-tidy", false, "do not run go mod tidy")
	_ = f.MarkHidden("apigen-replace")
	_ = f.MarkHidden("no-tidy")
	return cmd
}

func runInit(ctx context.Context, opts scaffold.InitOptions, tidy bool, stdout, stderr io.Writer) error {
	start := time.Now()
	plan, err := scaffold.Init(opts)
	if err != nil {
		return scaffoldError(err, stderr)
	}
	if err := plan.Apply(); err != nil {
		fmt.Fprintf(stderr, "apigen: %v\n", err)
		return exitError{exitFailure}
	}
	for _, l := range plan.Summary() {
		fmt.Fprintln(stdout, "  "+l)
	}
	if tidy {
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(ctx, tidyTimeout)
		defer cancel()
		replace := opts.Replace
		if replace != "" {
			replace, _ = filepath.Abs(replace)
		}
		// In a kubebuilder project (no module path) groups.go already imports the install
		// packages apigen generate has yet to write.
		if err := scaffold.Tidy(ctx, plan.Root, replace, opts.Module == ""); err != nil {
			fmt.Fprintf(stderr, "apigen: %v\n", err)
			return exitError{exitFailure}
		}
	}
	if opts.Replace != "" {
		fmt.Fprintf(stdout, "go.mod replaces %s with the source checkout %s (this apigen runs from it)\n", scaffold.ApigenModule, opts.Replace)
	} else {
		fmt.Fprintf(stdout, "go.mod requires %s %s (this apigen's version), with no replace\n", scaffold.ApigenModule, scaffold.ApigenVersion(""))
	}
	next := "go tool apigen create api --group <group> --version v1 --kind <Kind>"
	if opts.Module == "" {
		next = "make apiserver-generate apiserver-run"
	}
	fmt.Fprintf(stdout, "apigen init: %d files written to %s in %dms; next: cd %s && %s\n",
		len(plan.Changes), relPath(plan.Root), time.Since(start).Milliseconds(), relPath(plan.Root), next)
	return nil
}

// scaffoldError prints err (a clash lists every problem) and returns exit code 1.
func scaffoldError(err error, stderr io.Writer) error {
	var clash *scaffold.ClashError
	if errors.As(err, &clash) {
		fmt.Fprintf(stderr, "apigen: %v\n", clash)
	} else {
		fmt.Fprintf(stderr, "apigen: %v\n", err)
	}
	return exitError{exitFailure}
}
