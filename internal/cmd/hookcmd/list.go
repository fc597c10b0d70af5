package hookcmd

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

func newListCmd(a *cmdkit.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the hooks with their last delivery",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runList(cmd.Context(), a, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the hooks as JSON (never their secrets)")
	return cmd
}

// listed is a hook as `hook list --json` shows it.
type listed struct {
	board.Hook
	URL  string              `json:"url"`
	Last *board.HookDelivery `json:"lastDelivery,omitempty"`
}

func runList(ctx context.Context, a *cmdkit.App, asJSON bool) error {
	s, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	hs, err := s.HookList(ctx)
	if err != nil {
		return err
	}
	out := make([]listed, 0, len(hs))
	for _, h := range hs {
		l := listed{Hook: h, URL: hookURL(a, h.Name)}
		if ds, err := s.HookDeliveries(ctx, h.Name, 1); err == nil && len(ds) == 1 {
			l.Last = &ds[0]
		}
		out = append(out, l)
	}
	if asJSON {
		return cmdkit.WriteJSON(a.Stdout, out)
	}
	if len(out) == 0 {
		fmt.Fprintln(a.Stdout, "No hooks. Add one with 'bonsai hook add <name> --project P --scheme github --action sync'.")
		return nil
	}
	tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPROJECT\tSCHEME\tACTION\tLAST DELIVERY")
	for _, l := range out {
		last := "none yet"
		if l.Last != nil {
			last = deliveryLine(*l.Last, a.Now())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", l.Name, l.ProjectSlug, l.Scheme, actionText(l.Hook), last)
	}
	return tw.Flush()
}

// deliveryLine is a delivery in one line: when, outcome, status, what.
func deliveryLine(d board.HookDelivery, now time.Time) string {
	ago := now.Sub(d.ReceivedAt).Round(time.Second)
	parts := []string{fmt.Sprintf("%s ago", ago), string(d.Outcome), fmt.Sprint(d.Status)}
	if d.Event != "" {
		parts = append(parts, d.Event)
	}
	if d.Detail != "" {
		parts = append(parts, termsafe.Line(d.Detail))
	}
	return strings.Join(parts, " · ")
}

func newLogCmd(a *cmdkit.App) *cobra.Command {
	var asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "log <name>",
		Short: "Show a hook's deliveries, newest first",
		Long: `Show a hook's deliveries, newest first: when each came, its delivery id and
event, the status answered, and what it did or why it was refused (a bad
signature, a replay, a body over 1 MiB, a field the template names missing
from the payload). The payload, headers and secret are never kept.`,
		Args: cmdkit.ExactArgs("<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			ds, err := s.HookDeliveries(cmd.Context(), args[0], limit)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdkit.WriteJSON(a.Stdout, ds)
			}
			if len(ds) == 0 {
				fmt.Fprintf(a.Stdout, "No deliveries to hook %s yet.\n", args[0])
				return nil
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "RECEIVED\tDELIVERY\tEVENT\tSTATUS\tOUTCOME\tDETAIL")
			for _, d := range ds {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", d.ReceivedAt.Local().Format("2006-01-02 15:04:05"),
					termsafe.Line(orDash(d.DeliveryID)), termsafe.Line(orDash(d.Event)), d.Status, d.Outcome, termsafe.Line(d.Detail))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the deliveries as JSON")
	cmd.Flags().IntVar(&limit, "limit", 50, "how many deliveries to show")
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newRmCmd(a *cmdkit.App) *cobra.Command {
	return &cobra.Command{
		Use:   "rm <name>",
		Short: "Remove a hook and its delivery log",
		Args:  cmdkit.ExactArgs("<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			if err := s.DeleteHook(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "Removed hook %s; its deliveries are refused from now on.\n", args[0])
			return nil
		},
	}
}
