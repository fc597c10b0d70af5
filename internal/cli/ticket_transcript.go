package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/store"
)

func newTicketTranscriptCmd(a *app) *cobra.Command {
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
		Args:    exactArgs("<slug>#<n>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := board.ParseRef(args[0])
			if err != nil {
				return err
			}
			return a.printTranscript(cmd.Context(), ref)
		},
	}
}

// printTranscript writes the ticket's transcript to stdout.
func (a *app) printTranscript(ctx context.Context, ref board.Ref) error {
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	t, err := s.Ticket(ctx, ref)
	if err != nil {
		return err
	}
	u, err := a.storeURL()
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(a.stdout, 64<<10)
	found := false
	if u == "" {
		d, err := a.dataDir()
		if err != nil {
			return err
		}
		path, err := session.Layout{Root: d.Sessions()}.Transcript(t.ProjectID, t.ID)
		if err != nil {
			return err
		}
		found, err = copyLines(w, path)
		if err != nil {
			return err
		}
	}
	if !found {
		if found, err = writeStoredLines(ctx, w, s, t.ID); err != nil {
			return err
		}
	}
	if !found {
		return board.Errorf(board.ENOTFOUND, "%s has no transcript: no agent has worked on it yet", ref)
	}
	return w.Flush()
}

// copyLines copies the complete lines of the file at path to w (a line
// being written, or torn by a crash, is left out); false when there is
// no file, or no line in it.
func copyLines(w io.Writer, path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	wrote := false
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it whole before deciding.
			rest, err2 := r.ReadBytes('\n')
			line, err = append(append([]byte(nil), line...), rest...), err2
		}
		if err == io.EOF {
			return wrote, nil
		}
		if err != nil {
			return wrote, err
		}
		if _, err := w.Write(line); err != nil {
			return wrote, err
		}
		wrote = true
	}
}

// writeStoredLines writes the ticket's stored transcript lines to w, each
// with its newline; false when there are none.
func writeStoredLines(ctx context.Context, w io.Writer, s store.Transcripts, ticketID string) (bool, error) {
	found := false
	err := s.TranscriptLines(ctx, ticketID, 0, func(_ int64, line []byte) error {
		found = true
		if _, err := w.Write(line); err != nil {
			return err
		}
		_, err := w.Write([]byte{'\n'})
		return err
	})
	return found, err
}
