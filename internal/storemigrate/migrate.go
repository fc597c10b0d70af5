package storemigrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/boardcopy"
)

// Board is a store a board is copied from or to.
type Board interface {
	store.Copier
	Close() error
}

// Locations knows the two kinds of board location: a Postgres URL or a
// SQLite file.
type Locations struct {
	// IsURL reports a postgres:// URL; anything else is a SQLite file.
	IsURL func(loc string) bool
	// Redact returns a URL without its password.
	Redact func(loc string) string
	// Open opens the board at loc.
	Open func(ctx context.Context, loc string) (Board, error)
}

// Migration is one copy of a board.
type Migration struct {
	Locations
	// From and To are the source and the target; Sessions the session
	// files of a SQLite source ("": the sessions directory beside it).
	From, To, Sessions string
}

// Check refuses what the person must change: the same board twice, a
// target file that exists (no board is overwritten), session files for
// a Postgres board or a sessions directory that is not one.
func (m Migration) Check() error {
	if m.same(m.From, m.To) {
		return errors.New("--from and --to name the same board")
	}
	if !m.IsURL(m.To) {
		if _, err := os.Stat(m.To); err == nil {
			return fmt.Errorf("%s already exists; --to takes a new file, so no board is overwritten", m.To)
		}
	}
	if m.Sessions != "" && m.IsURL(m.From) {
		return errors.New("--sessions is for a SQLite board: a Postgres board holds its transcripts")
	}
	if m.Sessions != "" {
		if st, err := os.Stat(m.Sessions); err != nil || !st.IsDir() {
			return fmt.Errorf("--sessions %s is not a directory: give the sessions directory of the data directory the SQLite board was in", m.Sessions)
		}
	}
	return nil
}

// Result is what a migration copied: each table's rows and checksum, and
// the session files read (nil for a Postgres source).
type Result struct {
	Sums  []boardcopy.Sum
	Files *boardcopy.TranscriptFiles
}

// Run copies the board (after Check) and verifies it.
func (m Migration) Run(ctx context.Context) (Result, error) {
	src, err := m.Open(ctx, m.From)
	if err != nil {
		return Result{}, err
	}
	defer src.Close()
	var res Result
	read := store.Copier(src)
	if !m.IsURL(m.From) {
		sessions := m.Sessions
		if sessions == "" {
			sessions = filepath.Join(filepath.Dir(m.From), "sessions")
		}
		res.Files = transcriptFiles(src, sessions)
		read = &boardcopy.AttachmentFiles{Copier: res.Files, Read: store.BlobDir{Dir: store.AttachmentsDir(m.From)}.Read}
	}
	dst, err := m.Open(ctx, m.To)
	if err != nil {
		return Result{}, err
	}
	defer dst.Close()
	if res.Sums, err = boardcopy.Copy(ctx, read, dst); err != nil {
		return Result{}, fmt.Errorf("copy the board to %s: %w", m.where(m.To), err)
	}
	return res, nil
}

// Write prints what the migration copied and how to use the new board.
func (m Migration) Write(w io.Writer, res Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tROWS\tSHA-256")
	for _, s := range res.Sums {
		fmt.Fprintf(tw, "%s\t%d\t%.16s\n", s.Table, s.Rows, s.SHA256)
	}
	tw.Flush()
	if f := res.Files; f != nil {
		fmt.Fprintf(w, "Transcripts: %d session files from %s", f.Files, f.Dir)
		if f.Skipped > 0 {
			fmt.Fprintf(w, " (%d lines that were not JSON, torn by a crash, left out)", f.Skipped)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Copied the board from %s to %s; both hold the same rows.\n", m.where(m.From), m.where(m.To))
	if m.IsURL(m.To) {
		fmt.Fprintf(w, "Use it with: bonsai config set store.url %s (or BONSAI_DATABASE_URL)\n", m.Redact(m.To))
	}
}

// same reports whether two locations name one board.
func (m Migration) same(a, b string) bool {
	if m.IsURL(a) || m.IsURL(b) {
		return a == b
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// where names a location without its password.
func (m Migration) where(loc string) string {
	if m.IsURL(loc) {
		return m.Redact(loc)
	}
	return loc
}

// transcriptFiles reads a SQLite board with the session files under
// sessions as its transcripts.
func transcriptFiles(src store.Copier, sessions string) *boardcopy.TranscriptFiles {
	l := session.Layout{Root: sessions}
	return &boardcopy.TranscriptFiles{Copier: src, Dir: sessions, Open: func(projectID, ticketID string) (io.ReadCloser, error) {
		p, err := l.Transcript(projectID, ticketID)
		if err != nil {
			return nil, err
		}
		return os.Open(p)
	}}
}
