package boardcopy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"

	"github.com/bonsai-run/bonsai/internal/store"
)

// TranscriptFiles is a SQLite board as a copy reads it with its session
// files: on one machine a ticket's transcript is a file in the data
// directory, not rows. Copy and Verify read transcript_lines as the lines
// of each ticket's file where it has one, else as the rows the store
// holds (a board copied back from a shared store, whose files were never
// written). A line that is not one JSON value (torn by a crash) is left
// out and counted in Skipped.
type TranscriptFiles struct {
	store.Copier
	// Dir names where the files are, for messages.
	Dir string
	// Open opens the transcript file of a ticket; an error wrapping
	// fs.ErrNotExist means it has none.
	Open func(projectID, ticketID string) (io.ReadCloser, error)

	// Files and Skipped say what the last read of transcript_lines took
	// from files: how many, and how many lines it left out.
	Files, Skipped int
}

// ReadTable implements store.Copier.
func (c *TranscriptFiles) ReadTable(ctx context.Context, t store.Table, each func(row []any) error) error {
	if t.Name != "transcript_lines" {
		return c.Copier.ReadTable(ctx, t, each)
	}
	c.Files, c.Skipped = 0, 0
	tickets, err := c.tickets(ctx)
	if err != nil {
		return err
	}
	fromFile := map[string]bool{}
	for _, tk := range tickets {
		ok, err := c.readFile(tk[0], tk[1], each)
		if err != nil {
			return err
		}
		fromFile[tk[0]] = ok
	}
	return c.Copier.ReadTable(ctx, t, func(row []any) error {
		if id, _ := row[0].(string); fromFile[id] {
			return nil
		}
		return each(row)
	})
}

// tickets lists the IDs and project IDs of the board's tickets.
func (c *TranscriptFiles) tickets(ctx context.Context) ([][2]string, error) {
	var t store.Table
	for _, ct := range store.CopyTables {
		if ct.Name == "tickets" {
			t = ct
		}
	}
	var out [][2]string
	err := c.Copier.ReadTable(ctx, t, func(row []any) error {
		id, _ := row[0].(string)
		project, _ := row[1].(string)
		out = append(out, [2]string{id, project})
		return nil
	})
	return out, err
}

// readFile calls each with a row for every line of the ticket's file,
// reporting whether it has one with a line in it.
func (c *TranscriptFiles) readFile(ticketID, projectID string, each func(row []any) error) (bool, error) {
	f, err := c.Open(projectID, ticketID)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	c.Files++
	r := bufio.NewReaderSize(f, 64<<10)
	n := int64(0)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
			if store.CheckTranscriptLines([][]byte{line}) != nil {
				c.Skipped++
			} else {
				if err := each([]any{ticketID, n, string(line)}); err != nil {
					return true, err
				}
				n++
			}
		} else if len(line) > 0 {
			c.Skipped++ // a torn last line
		}
		if errors.Is(err, io.EOF) {
			return n > 0, nil
		}
		if err != nil {
			return true, err
		}
	}
}
