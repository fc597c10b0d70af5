package ticketcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

func newTicketEditCmd(a *cmdkit.App) *cobra.Command {
	var (
		title, description, descriptionFile string
		criteria                            []string
		priority                            int
	)
	cmd := &cobra.Command{
		Use:   "edit <slug>#<n> [flags]",
		Short: "Change a ticket's title, description, criteria or priority",
		Example: `  bonsai ticket edit demo#3 --priority 0
  bonsai ticket edit demo#3 --criterion "--verbose prints each step" --criterion "documented in --help"
  bonsai ticket edit demo#3 --description-file notes.md`,
		Args: cmdkit.ExactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := board.ParseRef(args[0])
			if err != nil {
				return err
			}
			var u board.TicketPatch
			f := cmd.Flags()
			if f.Changed("title") {
				if err := board.ValidateTitle(title); err != nil {
					return err
				}
				u.Title = &title
			}
			if f.Changed("description") || f.Changed("description-file") {
				d, err := readDescription(a, description, descriptionFile, f.Changed("description"))
				if err != nil {
					return err
				}
				u.Description = &d
			}
			if f.Changed("criterion") {
				if err := board.ValidateCriteria(criteria); err != nil {
					return err
				}
				u.Criteria = &criteria
			}
			if f.Changed("priority") {
				if err := board.ValidatePriority(priority); err != nil {
					return err
				}
				u.Priority = &priority
			}
			if u.IsZero() {
				return cmdkit.Usagef("nothing to change; give at least one of --title, --description, --description-file, --criterion, --priority")
			}
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			t, err := s.UpdateTicket(cmd.Context(), ref, u, board.Human)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "Updated %s\n", t.Ref())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&title, "title", "", "new title")
	f.StringVar(&description, "description", "", "new description (Markdown)")
	f.StringVar(&descriptionFile, "description-file", "", "read the new description from a file, or - for standard input")
	f.StringArrayVar(&criteria, "criterion", nil, "replace the acceptance criteria (repeat for several)")
	cmdkit.AddPriorityFlag(f, &priority)
	cmd.MarkFlagsMutuallyExclusive("description", "description-file")
	return cmd
}

// moveTicket moves a ticket as a person and reports the new state.
func moveTicket(cmd *cobra.Command, a *cmdkit.App, refArg string, req board.MoveRequest) (board.Ticket, error) {
	ref, err := board.ParseRef(refArg)
	if err != nil {
		return board.Ticket{}, err
	}
	s, err := a.OpenStore(cmd.Context())
	if err != nil {
		return board.Ticket{}, err
	}
	if err := land.CheckLeaveDone(cmd.Context(), s, ref, req); err != nil {
		return board.Ticket{}, err
	}
	vs, err := s.Variants(cmd.Context(), ref)
	if err != nil {
		return board.Ticket{}, err
	}
	if err := board.CheckVariantMove(vs, ref); err != nil {
		return board.Ticket{}, err
	}
	return s.MoveTicket(cmd.Context(), ref, req, a.Author())
}

func newTicketMoveCmd(a *cmdkit.App, approve Approver) *cobra.Command {
	return &cobra.Command{
		Use:   "move <slug>#<n> <STATE>",
		Short: "Move a ticket to another state, as a person",
		Long: `Move a ticket to another state, as a person. The board rules apply: people
hand tickets to the agent (BACKLOG → RESEARCH or IN_PROGRESS), take them back
(→ BACKLOG), approve (VERIFICATION → DONE, see 'ticket approve') and return
work (see 'ticket return'). Only the agent moves a ticket to VERIFICATION.
A refused move exits with code 4 and names the rule.`,
		Example: "  bonsai ticket move demo#3 RESEARCH",
		Args:    cmdkit.ExactArgs("<slug>#<n>", "<STATE>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			to, err := board.ParseState(args[1])
			if err != nil {
				return err
			}
			if to == board.Done {
				// Approving lands the work, as 'ticket approve' does.
				return approveCmd(cmd, a, approve, args[0], "", false)
			}
			t, err := moveTicket(cmd, a, args[0], board.MoveRequest{To: to, Actor: board.Human})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "Moved %s to %s\n", t.Ref(), text.StateLabel(t))
			return nil
		},
	}
}

func newTicketApproveCmd(a *cmdkit.App, approve Approver) *cobra.Command {
	var comment string
	cmd := &cobra.Command{
		Use:   "approve <slug>#<n>",
		Short: "Accept the agent's work and land it: VERIFICATION → DONE",
		Long: `Accept the agent's work and land it as the project's landing mode says
(docs/landing.md): merge puts the ticket branch on the default branch and
pushes it, pr merges the ticket's pull request, none leaves the work on its
branch. The ticket is DONE once the work landed. A branch that conflicts with
the default branch goes back to the agent to resolve; any other failure
leaves the ticket in VERIFICATION with a comment naming the cause and the
fix, and 'bonsai ticket land' tries again.`,
		Example: `  bonsai ticket approve demo#3
  bonsai ticket approve demo#3 --comment "Looks good, merging."`,
		Args: cmdkit.ExactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return approveCmd(cmd, a, approve, args[0], comment, false)
		},
	}
	cmd.Flags().StringVar(&comment, "comment", "", "a note to add with the approval")
	return cmd
}

// approveCmd approves (or, again, lands) a ticket and reports what
// happened.
func approveCmd(cmd *cobra.Command, a *cmdkit.App, approve Approver, refArg, note string, again bool) error {
	ref, err := board.ParseRef(refArg)
	if err != nil {
		return err
	}
	r, err := approve(cmd.Context(), ref, note, again)
	if err != nil {
		return err
	}
	switch r.Outcome {
	case land.Returned:
		fmt.Fprintf(a.Stdout, "%s\n", termsafe.Text(r.Message))
	case land.Landed:
		fmt.Fprintf(a.Stdout, "%s It is DONE\n", termsafe.Text(r.Message))
	}
	return nil
}

func newTicketReturnCmd(a *cmdkit.App) *cobra.Command {
	var feedback string
	var attach []string
	cmd := &cobra.Command{
		Use:   "return <slug>#<n> --feedback TEXT",
		Short: "Send the agent's work back: VERIFICATION → IN_PROGRESS with feedback",
		Long: `Send the agent's work back: VERIFICATION → IN_PROGRESS with sub-state
returned. The feedback is posted as a comment, and the next heartbeat picks
the ticket before other work in progress. Only a ticket in VERIFICATION can be
returned; to hand a BACKLOG or RESEARCH ticket to the agent use 'ticket move'.`,
		Example: `  bonsai ticket return demo#3 --feedback "Also cover the quiet mode."
  bonsai ticket return demo#3 --feedback "The menu is cut off:" --attach menu.png`,
		Args: cmdkit.ExactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(feedback) == "" {
				return cmdkit.Usagef("--feedback is empty; say what the agent should change")
			}
			if err := checkReturnable(cmd, a, args[0]); err != nil {
				return err
			}
			limits := attachLimits(a)
			files, err := readAttachments(a, attach, limits)
			if err != nil {
				return err
			}
			t, err := moveTicket(cmd, a, args[0], board.MoveRequest{To: board.InProgress, Actor: board.Human, Feedback: feedback})
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "Returned %s to the agent with your feedback\n", t.Ref())
			return attachFeedback(cmd.Context(), a, t.Ref(), files, limits)
		},
	}
	cmd.Flags().StringVar(&feedback, "feedback", "", "what to change (required)")
	cmd.MarkFlagRequired("feedback")
	addAttachFlag(cmd.Flags(), &attach)
	return cmd
}

// checkReturnable refuses to return a ticket that is not in VERIFICATION: the
// board would accept the move of a BACKLOG or RESEARCH ticket to IN_PROGRESS
// as a hand-over and drop the feedback, yet report it returned.
func checkReturnable(cmd *cobra.Command, a *cmdkit.App, refArg string) error {
	ref, err := board.ParseRef(refArg)
	if err != nil {
		return err
	}
	s, err := a.OpenStore(cmd.Context())
	if err != nil {
		return err
	}
	t, err := s.Ticket(cmd.Context(), ref)
	if err != nil {
		return err
	}
	if t.State == board.Verification {
		return nil
	}
	return board.Errorf(board.EREFUSED,
		"%s is in %s; only work in VERIFICATION can be returned (to hand the ticket to the agent: bonsai ticket move %s IN_PROGRESS; to tell it something: bonsai comment add %s TEXT)",
		ref, t.State, ref, ref)
}
