package ticketcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/land"
)

func newTicketReopenCmd(a *cmdkit.App) *cobra.Command {
	var title, note string
	var criteria []string
	cmd := &cobra.Command{
		Use:   "reopen <slug>#<n>",
		Short: "Open a follow-up ticket of a DONE ticket, in BACKLOG",
		Long: `Reopen a DONE ticket as a follow-up: a new BACKLOG ticket titled
"Follow-up: <title>" whose description names the original (and the commit
its work landed as) and quotes its description and acceptance criteria. The
original stays DONE and gets a comment naming the follow-up. A ticket whose
work landed cannot be moved out of DONE; this is how it is reopened
(docs/landing.md, "Reopening a DONE ticket").`,
		Example: `  bonsai ticket reopen demo#3 --description "The flag is ignored on Windows." --criterion "--verbose works on Windows"`,
		Args:    cmdkit.ExactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := board.ParseRef(args[0])
			if err != nil {
				return err
			}
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			f, err := land.Reopen(cmd.Context(), s, ref, a.Author(), title, note, criteria)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "Opened %s, a follow-up of %s, in BACKLOG\n", f.Ref(), ref)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&title, "title", "", `the follow-up's title (default "Follow-up: <title of the original>")`)
	fl.StringVar(&note, "description", "", "what the follow-up is for, before the quote of the original (Markdown)")
	fl.StringArrayVar(&criteria, "criterion", nil, "an acceptance criterion of the follow-up (repeat for several)")
	return cmd
}
