package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

func newTicketReopenCmd(a *app) *cobra.Command {
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
		Args:    exactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := board.ParseRef(args[0])
			if err != nil {
				return err
			}
			s, err := a.openStore(cmd.Context())
			if err != nil {
				return err
			}
			f, err := reopen(cmd.Context(), s, ref, a.author(), title, note, criteria)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Opened %s, a follow-up of %s, in BACKLOG\n", f.Ref(), ref)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&title, "title", "", `the follow-up's title (default "Follow-up: <title of the original>")`)
	fl.StringVar(&note, "description", "", "what the follow-up is for, before the quote of the original (Markdown)")
	fl.StringArrayVar(&criteria, "criterion", nil, "an acceptance criterion of the follow-up (repeat for several)")
	return cmd
}

// reopen creates the follow-up of DONE ticket ref (board.FollowUp) and
// comments on the original, as author.
func reopen(ctx context.Context, s store.Store, ref board.Ref, author, title, note string, criteria []string) (board.Ticket, error) {
	t, err := s.Ticket(ctx, ref)
	if err != nil {
		return board.Ticket{}, err
	}
	l, err := landingOf(ctx, s, ref)
	if err != nil {
		return board.Ticket{}, err
	}
	f, err := board.FollowUp(t, l, title, note, criteria)
	if err != nil {
		return board.Ticket{}, err
	}
	if f, err = s.CreateTicket(ctx, f, board.Human); err != nil {
		return board.Ticket{}, err
	}
	if _, err := s.AddComment(ctx, ref, board.FollowUpComment(f, author)); err != nil {
		return f, err
	}
	return f, nil
}

// landingOf is a ticket's landing record, empty when it has none.
func landingOf(ctx context.Context, s store.Store, ref board.Ref) (board.Landing, error) {
	l, err := s.Landing(ctx, ref)
	if board.ErrorCode(err) == board.ENOTFOUND {
		return board.Landing{Ref: ref}, nil
	}
	return l, err
}

// checkLeaveDone refuses a person's move of a DONE ticket whose work
// landed (board.CheckLeaveDone).
func checkLeaveDone(ctx context.Context, s store.Store, ref board.Ref, req board.MoveRequest) error {
	t, err := s.Ticket(ctx, ref)
	if err != nil || t.State != board.Done {
		return err
	}
	l, err := landingOf(ctx, s, ref)
	if err != nil {
		return err
	}
	return board.CheckLeaveDone(t, l, req)
}
