package ticketcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// approvalFlags are the flags of `ticket allow` and `ticket deny`.
type approvalFlags struct {
	always   bool
	note, id string
}

func newTicketAllowCmd(a *cmdkit.App) *cobra.Command {
	var f approvalFlags
	cmd := &cobra.Command{
		Use:   "allow <slug>#<n> [--always] [--note TEXT] [--id ID]",
		Short: "Let a command the agent asked to run run: once, or always for the project",
		Long: `Let a command the agent asked to run run. In a project whose permission mode
or Ask patterns hold a command for a person, the agent's run ends with a
request on the ticket, which stays blocked until you decide. Allowing
unblocks it; the next heartbeat tells the agent, and the command runs.

Without --always the command runs once, on this ticket. With --always the
identical command runs without asking on every ticket of the project; when
it is one simple command it is also added to the project's allow list
('bonsai project show'), where 'bonsai project edit --allow' can change it.
With several pending requests on the ticket, --id names one ('bonsai
ticket show' lists them).`,
		Example: `  bonsai ticket allow demo#3
  bonsai ticket allow demo#3 --always --note "fine, it only writes the build dir"`,
		Args: cmdkit.ExactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return decideApproval(cmd, a, args[0], f, true)
		},
	}
	cmd.Flags().BoolVar(&f.always, "always", false, "allow the identical command on every ticket of the project, without asking")
	addApprovalFlags(cmd, &f)
	return cmd
}

func newTicketDenyCmd(a *cmdkit.App) *cobra.Command {
	var f approvalFlags
	cmd := &cobra.Command{
		Use:   "deny <slug>#<n> [--note TEXT] [--id ID]",
		Short: "Refuse a command the agent asked to run; the note tells it why",
		Long: `Refuse a command the agent asked to run. The ticket is unblocked; the next
heartbeat tells the agent the command was denied, with your note, and it
goes on without it. With several pending requests on the ticket, --id names
one ('bonsai ticket show' lists them).`,
		Example: `  bonsai ticket deny demo#3 --note "do not touch vendor/; run go mod tidy instead"`,
		Args:    cmdkit.ExactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return decideApproval(cmd, a, args[0], f, false)
		},
	}
	addApprovalFlags(cmd, &f)
	return cmd
}

func addApprovalFlags(cmd *cobra.Command, f *approvalFlags) {
	cmd.Flags().StringVar(&f.note, "note", "", "a message to the agent with your decision")
	cmd.Flags().StringVar(&f.id, "id", "", "the approval to decide, when the ticket has several pending")
}

// decideApproval decides the ticket's pending approval (or the one --id
// names) and says what happens next.
func decideApproval(cmd *cobra.Command, a *cmdkit.App, refArg string, f approvalFlags, allow bool) error {
	ref, err := board.ParseRef(refArg)
	if err != nil {
		return err
	}
	d := board.ApprovalDecision{Allow: allow, Always: f.always, Note: f.note, By: a.Author()}
	if err := d.Validate(); err != nil {
		return err
	}
	s, err := a.OpenStore(cmd.Context())
	if err != nil {
		return err
	}
	id := f.id
	if id == "" {
		as, err := s.Approvals(cmd.Context(), ref)
		if err != nil {
			return err
		}
		pending := text.PendingApprovals(as)
		switch len(pending) {
		case 0:
			return board.Errorf(board.ENOTFOUND, "%s has no pending approval: the agent asked to run nothing that waits for a person (see bonsai ticket show %s)", ref, ref)
		case 1:
			id = pending[0].ID
		default:
			var b strings.Builder
			fmt.Fprintf(&b, "%s has %d pending approvals; name one with --id:", ref, len(pending))
			for _, p := range pending {
				fmt.Fprintf(&b, "\n  --id %s  %s", p.ID, text.OneLine(p.Command, 80))
			}
			return cmdkit.Usagef("%s", b.String())
		}
	}
	ap, err := s.DecideApproval(cmd.Context(), ref, id, d)
	if err != nil {
		return err
	}
	fmt.Fprint(a.Stdout, text.ApprovalDecided(ref, ap, allow))
	return nil
}
