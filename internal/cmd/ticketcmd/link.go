package ticketcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/store"
)

// linkFlags are the --blocked-by and --parent of `ticket link` and
// `ticket unlink`: exactly one of them.
type linkFlags struct{ blockedBy, parent string }

func (f *linkFlags) add(cmd *cobra.Command, verb string) {
	cmd.Flags().StringVar(&f.blockedBy, "blocked-by", "", "the ticket it "+verb+" wait for, e.g. demo#4")
	cmd.Flags().StringVar(&f.parent, "parent", "", "the ticket it "+verb+" a sub-ticket of, e.g. demo#3")
	cmd.MarkFlagsMutuallyExclusive("blocked-by", "parent")
	cmd.MarkFlagsOneRequired("blocked-by", "parent")
}

// link returns the link the arguments name.
func (f *linkFlags) link(arg string) (board.Link, error) {
	ref, err := board.ParseRef(arg)
	if err != nil {
		return board.Link{}, err
	}
	kind, other := board.LinkBlockedBy, f.blockedBy
	if f.parent != "" {
		kind, other = board.LinkParent, f.parent
	}
	o, err := board.ParseRef(other)
	if err != nil {
		return board.Link{}, err
	}
	return board.Link{Ticket: ref, Other: o, Kind: kind}, nil
}

func newTicketLinkCmd(a *cmdkit.App) *cobra.Command {
	var f linkFlags
	cmd := &cobra.Command{
		Use:   "link <slug>#<n> (--blocked-by <slug>#<m> | --parent <slug>#<m>)",
		Short: "Make a ticket wait for another one, or a sub-ticket of it",
		Long: `Make a ticket wait for another one of the same project (--blocked-by), or
a sub-ticket of it (--parent). Agents do not pick a ticket while a blocker
of it, or a sub-ticket of it, is not DONE; a parent whose sub-tickets are
all DONE gets a run that verifies the whole. A link that would close a
dependency cycle is refused, naming the cycle.`,
		Example: "  bonsai ticket link demo#5 --blocked-by demo#4\n  bonsai ticket link demo#6 --parent demo#3",
		Args:    cmdkit.ExactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := f.link(args[0])
			if err != nil {
				return err
			}
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			if err := s.LinkTickets(cmd.Context(), l, board.Human); err != nil {
				return err
			}
			fmt.Fprintln(a.Stdout, linkText(l))
			return nil
		},
	}
	f.add(cmd, "will")
	return cmd
}

func newTicketUnlinkCmd(a *cmdkit.App) *cobra.Command {
	var f linkFlags
	cmd := &cobra.Command{
		Use:     "unlink <slug>#<n> (--blocked-by <slug>#<m> | --parent <slug>#<m>)",
		Short:   "Remove a blocker or a parent from a ticket",
		Example: "  bonsai ticket unlink demo#5 --blocked-by demo#4",
		Args:    cmdkit.ExactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := f.link(args[0])
			if err != nil {
				return err
			}
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			if err := s.UnlinkTickets(cmd.Context(), l, board.Human); err != nil {
				return err
			}
			if l.Kind == board.LinkParent {
				fmt.Fprintf(a.Stdout, "%s is no longer a sub-ticket of %s\n", l.Ticket, l.Other)
			} else {
				fmt.Fprintf(a.Stdout, "%s no longer waits for %s\n", l.Ticket, l.Other)
			}
			return nil
		},
	}
	f.add(cmd, "did")
	return cmd
}

func linkText(l board.Link) string {
	if l.Kind == board.LinkParent {
		return fmt.Sprintf("%s is a sub-ticket of %s; %s waits until its sub-tickets are DONE", l.Ticket, l.Other, l.Other)
	}
	return fmt.Sprintf("%s waits for %s", l.Ticket, l.Other)
}

// createChild creates t as a sub-ticket of the ticket parent names, in
// the same project.
func createChild(cmd *cobra.Command, s store.Store, t board.Ticket, parent string) (board.Ticket, error) {
	ref, err := board.ParseRef(parent)
	if err != nil {
		return board.Ticket{}, err
	}
	if ref.Project != t.ProjectSlug {
		return board.Ticket{}, cmdkit.Usagef("--parent %s is in another project than %s; a sub-ticket is in its parent's project", ref, t.ProjectSlug)
	}
	ts, err := s.CreateSubTickets(cmd.Context(), store.SubTickets{Parent: ref, Tickets: []board.Ticket{t}, Actor: board.Human})
	if err != nil {
		return board.Ticket{}, err
	}
	return ts[0], nil
}
