package cli

import (
	"github.com/spf13/cobra"

	"github.com/apigen-dev/apigen/generators/markerset"
)

// newMarkersCommand is `apigen markers [filter]`: the help of every marker apigen reads,
// generated from the generators' registrations (generators/markerset), as controller-gen
// prints its markers' help for `controller-gen <generator> +paths`.
func newMarkersCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "markers [filter]",
		Short: "List the markers apigen reads, where each goes, the generator that owns it, and what it does",
		Long: `markers prints every marker apigen accepts, one a line: how it is written (arguments
after "=" or ":", optional parts in [ ]; "..." ends an open-ended family), where it goes
(package, type, field or func), the generator that owns it, and what it does. A marker apigen
accepts but cannot honour says so, with the warning each use of it gets. The list is
generated from the markers each generator registers; a filter keeps the markers whose name
contains it.`,
		Example: `  apigen markers
  apigen markers kubebuilder:validation
  apigen markers genclient`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			filter := ""
			if len(args) == 1 {
				filter = args[0]
			}
			return markerset.Registry().WriteHelp(cmd.OutOrStdout(), filter)
		},
	}
}
