package ticketcmd

import (
	"bufio"
	"context"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/session"
)

func newTicketTranscriptCmd(a *cmdkit.App) *cobra.Command {
	return &cobra.Command{
		Use:   "transcript <slug>#<n>",
		Short: "Print a ticket's agent transcript as JSONL",
		Long: `Print the transcript of the agent's work on a ticket: the session file
format of docs/design.md §7, one JSON value a line (a header, then every
message, tool call and result, compaction and model change), as the agent
resumes it on the next run.

On a board in Postgres the transcript is read from the store, where every
worker writes it. On bonsai.db it is the ticket's session file in the data
directory (sessions/<project id>/<ticket id>/transcript.jsonl), or the lines
the store holds when there is no file (a board copied back from Postgres by
'bonsai store migrate').`,
		Example: "  bonsai ticket transcript demo#3\n  bonsai ticket transcript demo#3 > demo-3.jsonl",
		Args:    cmdkit.ExactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := board.ParseRef(args[0])
			if err != nil {
				return err
			}
			return printTranscript(cmd.Context(), a, ref)
		},
	}
}

// printTranscript writes the ticket's transcript to stdout: on a board
// in Postgres the store's lines, on bonsai.db the session file, else the
// lines the store holds (session.WriteTranscript).
func printTranscript(ctx context.Context, a *cmdkit.App, ref board.Ref) error {
	s, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	t, err := s.Ticket(ctx, ref)
	if err != nil {
		return err
	}
	u, err := a.StoreURL()
	if err != nil {
		return err
	}
	path := ""
	if u == "" {
		d, err := a.DataDir()
		if err != nil {
			return err
		}
		if path, err = (session.Layout{Root: d.Sessions()}).Transcript(t.ProjectID, t.ID); err != nil {
			return err
		}
	}
	w := bufio.NewWriterSize(a.Stdout, 64<<10)
	found, err := session.WriteTranscript(ctx, w, path, s, t.ID)
	if err != nil {
		return err
	}
	if !found {
		return board.Errorf(board.ENOTFOUND, "%s has no transcript: no agent has worked on it yet", ref)
	}
	return w.Flush()
}
