package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// exactArgs accepts exactly the named positional arguments and, unlike
// cobra.ExactArgs, says which one is missing or that text with spaces needs
// quotes: `bonsai ticket add demo Fix the bug` is the usual slip.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			return fmt.Errorf("missing %s", strings.Join(names[len(args):], " and "))
		case len(args) > len(names):
			return fmt.Errorf("%d arguments given, but %s takes %d (%s); put text that has spaces in quotes",
				len(args), strings.TrimPrefix(cmd.CommandPath(), "bonsai "), len(names), strings.Join(names, " "))
		}
		return nil
	}
}
