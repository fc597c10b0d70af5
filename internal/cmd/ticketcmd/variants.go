package ticketcmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/view"
)

// variantsOptions are the flags of `ticket variants`.
type variantsOptions struct {
	approve, ret int
	feedback     string
	note         string
	json         bool
}

// newTicketVariantsCmd is `bonsai ticket variants`: the comparison of a
// ticket run N ways, and choosing one.
func newTicketVariantsCmd(a *cmdkit.App, w Wiring) *cobra.Command {
	var o variantsOptions
	cmd := &cobra.Command{
		Use:   "variants <project#n>",
		Short: "Compare the variants of a ticket run N ways; approve or return one",
		Long: `Show the variants of a ticket run N ways ('bonsai ticket run demo#3 --variants
...') side by side: each variant's engine and model, state, branch, tokens,
cost, turns and time, and its evidence per criterion with the checks.

--approve N lands variant N as the project's landing mode says (merge or
pull request); the ticket becomes DONE with it, and the other variants are
closed: their branches are deleted from the clone and their worktrees
removed. --return N --feedback TEXT makes variant N's branch the ticket's,
closes the others, and sends the ticket back to its agent with the
feedback; it goes on with variant N's engine and model.`,
		Example: `  bonsai ticket variants demo#3
  bonsai ticket variants demo#3 --approve 2
  bonsai ticket variants demo#3 --return 1 --feedback "Keep this one, but add tests."`,
		Args: cmdkit.ExactArgs("<project#n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := board.ParseRef(args[0])
			if err != nil {
				return err
			}
			return runVariants(cmd, a, w, ref, o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.approve, "approve", 0, "approve variant N: land it, close the others")
	f.IntVar(&o.ret, "return", 0, "return variant N with --feedback: its branch becomes the ticket's, the others are closed")
	f.StringVar(&o.feedback, "feedback", "", "what the agent should change (with --return)")
	f.StringVar(&o.note, "note", "", "a note recorded with the approval (with --approve)")
	f.BoolVar(&o.json, "json", false, "print the variants as JSON")
	return cmd
}

func runVariants(cmd *cobra.Command, a *cmdkit.App, w Wiring, ref board.Ref, o variantsOptions) error {
	ctx := cmd.Context()
	s, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	vs, err := s.Variants(ctx, ref)
	if err != nil {
		return err
	}
	switch {
	case o.approve > 0 && o.ret > 0:
		return cmdkit.Usagef("give --approve or --return, not both")
	case o.approve > 0:
		v, err := board.NumberedVariant(vs, o.approve)
		if err != nil {
			return err
		}
		r, err := w.Approve(ctx, v.Ref, o.note, false)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.Stdout, termsafe.Text(r.Message))
		return nil
	case o.ret > 0:
		if strings.TrimSpace(o.feedback) == "" {
			return cmdkit.Usagef("--feedback is empty; say what the agent should change")
		}
		t, err := w.ReturnVariant(ctx, ref, o.ret, o.feedback)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.Stdout, "Variant %d is %s's branch now (%s); %s went back to its agent with your feedback.\n", o.ret, t.Ref(), termsafe.Text(t.Branch), t.Ref())
		return nil
	}
	views, err := view.LoadVariants(ctx, s, ref)
	if err != nil {
		return err
	}
	if o.json {
		return cmdkit.WriteJSON(a.Stdout, views)
	}
	if len(views) == 0 {
		fmt.Fprintf(a.Stdout, "%s was never run as variants (bonsai ticket run %s --variants ENGINE:MODEL,...).\n", ref, ref)
		return nil
	}
	printVariants(a, views)
	return nil
}

func printVariants(a *cmdkit.App, views []view.VariantView) {
	fmt.Fprintf(a.Stdout, "%s, round %d:\n", views[0].Ticket, views[0].Round)
	for _, v := range views {
		state := string(v.State)
		if v.State == board.VariantRunning {
			state = string(v.TicketState)
		}
		fmt.Fprintf(a.Stdout, "\n%d. %s  %s  %s\n", v.Number, termsafe.Text(v.Spec().String()), v.Ref, state)
		if v.Reason != "" {
			fmt.Fprintf(a.Stdout, "   %s\n", termsafe.Text(v.Reason))
		}
		fmt.Fprintf(a.Stdout, "   branch %s; %d runs, %d tokens, $%.4f, %d turns, %s\n", termsafe.Text(v.Branch), v.Runs, v.Tokens(), v.CostUSD, v.Turns,
			v.DurationNs.Round(time.Second))
		if v.Review.Tip != "" {
			fmt.Fprintf(a.Stdout, "   reviewed %.12s against %.12s\n", v.Review.Tip, v.Review.Base)
		}
		if v.Evidence != "" {
			fmt.Fprintf(a.Stdout, "   %s\n", strings.ReplaceAll(termsafe.Text(strings.TrimSpace(v.Evidence)), "\n", "\n   "))
		}
	}
}
