package ticketcmd

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// NewCmd returns `bonsai ticket` and its subcommands; w is what they
// need from the composition root.
func NewCmd(a *cmdkit.App, w Wiring) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ticket",
		Short: "Create, list, show, edit and move tickets",
		Long: `Create, list, show, edit and move tickets.

Tickets are named <project>#<number>, e.g. demo#12. They move
BACKLOG → RESEARCH → IN_PROGRESS → VERIFICATION → DONE; people hand tickets to
the agent (BACKLOG → RESEARCH or IN_PROGRESS) and review its work
(approve: VERIFICATION → DONE; return: back to IN_PROGRESS with feedback), and
answer the agent's requests to run a command (allow, deny). A DONE ticket whose
work landed stays DONE; 'ticket reopen' opens a follow-up of it.`,
	}
	cmd.AddCommand(newTicketAddCmd(a), newTicketListCmd(a), newTicketShowCmd(a, w.Blockers), newTicketEditCmd(a),
		newTicketMoveCmd(a, w.Approve), newTicketApproveCmd(a, w.Approve), newTicketLandCmd(a, w.Approve), newTicketReturnCmd(a), newTicketAllowCmd(a), newTicketDenyCmd(a),
		newTicketStopCmd(a), newTicketRunCmd(a, w.RunNow, w.RunVariants), newTicketTranscriptCmd(a), newTicketReopenCmd(a),
		newTicketLinkCmd(a), newTicketUnlinkCmd(a), newTicketVariantsCmd(a, w))
	return cmd
}

type ticketAddOptions struct {
	description, descriptionFile, state string
	parent                              string
	criteria, attach                    []string
	priority                            int
}

func newTicketAddCmd(a *cmdkit.App) *cobra.Command {
	var o ticketAddOptions
	cmd := &cobra.Command{
		Use:   "add <slug> <title>",
		Short: "Create a ticket and print its reference",
		Example: `  bonsai ticket add demo "Add a --verbose flag" --criterion "--verbose prints each step" --priority 1
  git log -1 --format=%B | bonsai ticket add demo "Fix the regression" --description-file -`,
		Args: cmdkit.ExactArgs("<slug>", "<title>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			desc, err := readDescription(a, o.description, o.descriptionFile, cmd.Flags().Changed("description"))
			if err != nil {
				return err
			}
			state, err := board.ParseState(o.state)
			if err != nil {
				return err
			}
			t := board.Ticket{
				ProjectSlug: args[0], Title: args[1], Description: desc,
				Criteria: o.criteria, Priority: o.priority, State: state,
			}
			if err := board.CheckNew(t); err != nil {
				return err
			}
			limits := attachLimits(a)
			files, err := readAttachments(a, o.attach, limits)
			if err != nil {
				return err
			}
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			if o.parent != "" {
				t, err = createChild(cmd, s, t, o.parent)
			} else {
				t, err = s.CreateTicket(cmd.Context(), t, board.Human)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(a.Stdout, t.Ref())
			return storeAttachments(cmd.Context(), a, s, t.Ref(), "", files, limits)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.description, "description", "", "description (Markdown)")
	f.StringVar(&o.descriptionFile, "description-file", "", "read the description from a file, or - for standard input")
	f.StringArrayVar(&o.criteria, "criterion", nil, "an acceptance criterion (repeat for several)")
	addAttachFlag(f, &o.attach)
	o.priority = board.DefaultPriority
	cmdkit.AddPriorityFlag(f, &o.priority)
	f.StringVar(&o.state, "state", "BACKLOG", "starting state: BACKLOG, RESEARCH or IN_PROGRESS")
	f.StringVar(&o.parent, "parent", "", "create it as a sub-ticket of this ticket, e.g. demo#3 (which then waits for it)")
	cmd.MarkFlagsMutuallyExclusive("description", "description-file")
	return cmd
}

// readDescription returns the description from --description or
// --description-file (- for stdin).
func readDescription(a *cmdkit.App, text, file string, textSet bool) (string, error) {
	if textSet || file == "" {
		return text, nil
	}
	var (
		b   []byte
		err error
	)
	if file == "-" {
		b, err = io.ReadAll(io.LimitReader(a.Stdin, board.MaxDescription+1))
	} else {
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return "", cmdkit.Usagef("read description: %v", err)
	}
	if file == "-" && len(b) > board.MaxDescription {
		return "", cmdkit.Usagef("description on standard input is over the limit of %d bytes", board.MaxDescription)
	}
	return string(b), nil
}

func newTicketListCmd(a *cmdkit.App) *cobra.Command {
	var (
		asJSON bool
		state  string
	)
	cmd := &cobra.Command{
		Use:   "list [<slug>]",
		Short: "List tickets, of one project or all",
		Example: `  bonsai ticket list
  bonsai ticket list demo --state in-progress
  bonsai ticket list demo --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var f store.TicketFilter
			if len(args) == 1 {
				f.ProjectSlug = args[0]
			}
			if state != "" {
				st, err := board.ParseState(state)
				if err != nil {
					return err
				}
				f.State = st
			}
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			if f.ProjectSlug != "" { // an unknown project is an error, not an empty list
				if _, err := s.Project(cmd.Context(), f.ProjectSlug); err != nil {
					return err
				}
			}
			ts, err := s.Tickets(cmd.Context(), f)
			if err != nil {
				return err
			}
			if asJSON {
				views := make([]view.Ticket, len(ts))
				for i, t := range ts {
					views[i] = view.NewTicket(t)
				}
				return cmdkit.WriteJSON(a.Stdout, views)
			}
			return text.WriteTickets(a.Stdout, ts, a.Now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&state, "state", "", "only tickets in this state")
	return cmd
}

func newTicketShowCmd(a *cmdkit.App, blockers func(board.Project) ([]view.Blocker, view.AgentFacts)) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "show <slug>#<n>",
		Short:   "Show a ticket with its comments and runs",
		Example: "  bonsai ticket show demo#12\n  bonsai ticket show demo#12 --json",
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
			d, p, err := view.LoadTicketDetail(cmd.Context(), s, ref, blockers)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdkit.WriteJSON(a.Stdout, d)
			}
			return text.WriteTicket(a.Stdout, d, p.Agent.PermissionMode, a.Now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
