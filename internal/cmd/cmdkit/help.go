package cmdkit

import (
	"strings"

	"github.com/spf13/cobra"
)

// NewHelpCmd replaces cobra's help command, which answers an unknown topic
// with the root's usage and exit status 0: a script calling
// `bonsai help tikcet` could not tell. This one says so, suggests the
// command meant, and exits 2.
func NewHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints the help of any command, as its --help flag does.",
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				topic := strings.Join(args, " ")
				if s := root.SuggestionsFor(args[0]); len(s) > 0 && len(args) == 1 {
					return Usagef("unknown help topic %q; did you mean %q?", topic, s[0])
				}
				return Usagef("unknown help topic %q; run 'bonsai --help' for the commands", topic)
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}
