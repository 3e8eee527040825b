package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/scaffold"
)

func newCreateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "create",
		Short:   "Add to an API repository written by apigen init",
		Example: `  apigen create api --group shop.example.com --version v1 --kind Order`,
	}
	cmd.AddCommand(newCreateAPICommand())
	return cmd
}

func newCreateAPICommand() *cobra.Command {
	var opts scaffold.APIOptions
	cmd := &cobra.Command{
		Use:   "api --group G --version V --kind K",
		Short: "Add a kind, or a new version of a kind, and wire it into the server",
		Long: `create api writes apis/<g>/<version>/<kind>_types.go (doc comments and markers; <g> is
the group's first DNS label) and the version's doc.go, and rewrites cmd/<name>-apiserver/groups.go so the server serves the group, and
config/deploy/apis.yaml (when config/deploy exists) so that it holds an APIService per
served group version. Run "go generate ./..." afterwards: it also writes a sample object of
each kind and version, valid for the types as they are then, to config/samples/generated/.

A kind that another version of the group already has is copied from it. Adding a second
version to a group creates the hub package apis/<g>/ (every version converts through it)
and adds +k8s:conversion-gen to the versions' doc.go files.

--storage=rest marks the kind +apigen:storage=rest and writes <kind>_rest.go in the group's
install package: new<Kind>REST, yours to fill in, serving an empty resource (list returns no
items, get 404) until you do. It moves to apis/<g>/install when the group gets a hub.

--storage=interface marks the kind +apigen:storage=interface and writes <kind>_storage.go in
the group's install package: new<Kind>Storage, returning the storage.Interface the generated
Store keeps the kind's objects in, yours to write (a table of your database, another system);
until you do, the objects are kept in the server's memory (runtime/storage/memory). It moves
with the rest of the install package when the group gets a hub.

Running it twice changes nothing. A clash (the kind exists with other options, a file it
would create exists with other content) is an error and nothing is written.`,
		Example: `  apigen create api --group shop.example.com --version v1 --kind Order
  apigen create api --group shop.example.com --version v1 --kind Shelf --namespaced=false --status --scale
  apigen create api --group shop.example.com --version v1 --kind Stock --storage=rest
  apigen create api --group shop.example.com --version v1 --kind Ledger --storage=interface

  # a second version: creates the hub package apis/shop and the conversions
  apigen create api --group shop.example.com --version v1beta1 --kind Order`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCreateAPI(".", opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Group, "group", "", "API group, a DNS subdomain such as shop.example.com (required)")
	f.StringVar(&opts.Version, "version", "", "API version such as v1, v1beta1 (required)")
	f.StringVar(&opts.Kind, "kind", "", "kind, UpperCamelCase such as Order (required)")
	f.BoolVar(&opts.Namespaced, "namespaced", true, "the kind's objects live in namespaces; false makes it cluster-scoped")
	f.BoolVar(&opts.Status, "status", false, "serve the /status subresource")
	f.BoolVar(&opts.Scale, "scale", false, "serve the /scale subresource over spec.replicas and status.replicas")
	f.StringVar(&opts.Storage, "storage", "etcd", "where the kind's objects are kept: etcd (the server's storage), rest "+
		"(REST you write: +apigen:storage=rest and a stub new<Kind>REST in the install package serving an empty resource), or "+
		"interface (a storage.Interface you write: +apigen:storage=interface and a stub new<Kind>Storage keeping them in memory)")
	for _, name := range []string{"group", "version", "kind"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

func runCreateAPI(dir string, opts scaffold.APIOptions, stdout, stderr io.Writer) error {
	start := time.Now()
	plan, err := scaffold.CreateAPI(dir, opts)
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
	if len(plan.Changes) == 0 {
		fmt.Fprintf(stdout, "apigen create api: %s/%s %s is already there; nothing changed\n", opts.Group, opts.Version, opts.Kind)
		return nil
	}
	fmt.Fprintf(stdout, "apigen create api: %d files changed in %dms; next: go generate ./...\n",
		len(plan.Changes), time.Since(start).Milliseconds())
	return nil
}
