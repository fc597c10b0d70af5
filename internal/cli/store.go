package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/boardcopy"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

func newStoreCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Move the board between SQLite and Postgres",
		Long: `The board lives in bonsai.db in the data directory, or in the Postgres
database that BONSAI_DATABASE_URL or 'bonsai config set store.url' names.
See docs/postgres.md.`,
	}
	cmd.AddCommand(newStoreMigrateCmd(a))
	return cmd
}

// copyStore is a store a board is copied from or to.
type copyStore interface {
	store.Copier
	Close() error
}

func newStoreMigrateCmd(a *app) *cobra.Command {
	var from, to, sessions string
	cmd := &cobra.Command{
		Use:   "migrate --to postgres://…|FILE",
		Short: "Copy the board to an empty Postgres database, or to a new SQLite file",
		Long: `Copy every project, ticket, comment, run, approval, landing, event and
notification of a board into an empty store, in one transaction, then check
that each table holds the same rows on both sides (counts and SHA-256
checksums). The source is left as it is.

Tickets' transcripts go too. On a SQLite board they are the session files
in the data directory's sessions directory (--sessions, by default the one
beside the SQLite file); a ticket without a file keeps the lines its board
holds. On Postgres they are rows, copied as they are: a SQLite board made
from them resumes each ticket from its rows until its next run writes the
file.

--from defaults to the board this command would use (BONSAI_DATABASE_URL,
store.url, else bonsai.db). --to takes a postgres:// URL (an empty database
or schema) or the path of a SQLite file that does not exist yet: the way
back, or a backup. Nothing else may write the board while it is copied:
stop the heartbeat service and bonsai serve first.`,
		Example: `  bonsai store migrate --to postgres://bonsai@db.internal:5432/bonsai
  bonsai config set store.url postgres://bonsai@db.internal:5432/bonsai
  bonsai store migrate --to ~/bonsai-backup.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStoreMigrate(cmd, a, from, to, sessions)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the board to copy: a postgres:// URL or a SQLite file (default: the current board)")
	cmd.Flags().StringVar(&to, "to", "", "where to copy it: an empty postgres:// database or a new SQLite file")
	cmd.Flags().StringVar(&sessions, "sessions", "", "the session files of a SQLite --from (default: the sessions directory beside it)")
	cmd.MarkFlagRequired("to")
	return cmd
}

func runStoreMigrate(cmd *cobra.Command, a *app, from, to, sessions string) error {
	ctx := cmd.Context()
	if from == "" {
		u, err := a.storeURL()
		if err != nil {
			return err
		}
		from = u
		if from == "" {
			d, err := a.dataDir()
			if err != nil {
				return err
			}
			from = d.DB()
		}
	}
	if same(from, to) {
		return &usageError{errors.New("--from and --to name the same board")}
	}
	if !postgres.IsURL(to) {
		if _, err := os.Stat(to); err == nil {
			return &usageError{fmt.Errorf("%s already exists; --to takes a new file, so no board is overwritten", to)}
		}
	}
	if sessions != "" && postgres.IsURL(from) {
		return &usageError{errors.New("--sessions is for a SQLite board: a Postgres board holds its transcripts")}
	}
	if sessions != "" {
		if st, err := os.Stat(sessions); err != nil || !st.IsDir() {
			return &usageError{fmt.Errorf("--sessions %s is not a directory: give the sessions directory of the data directory the SQLite board was in", sessions)}
		}
	}
	src, err := openCopyStore(ctx, from)
	if err != nil {
		return err
	}
	defer src.Close()
	var files *boardcopy.TranscriptFiles
	read := store.Copier(src)
	if !postgres.IsURL(from) {
		if sessions == "" {
			sessions = filepath.Join(filepath.Dir(from), "sessions")
		}
		files = transcriptFiles(src, sessions)
		read = files
	}
	dst, err := openCopyStore(ctx, to)
	if err != nil {
		return err
	}
	defer dst.Close()
	sums, err := boardcopy.Copy(ctx, read, dst)
	if err != nil {
		return fmt.Errorf("copy the board to %s: %w", where(to), err)
	}
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TABLE\tROWS\tSHA-256")
	for _, s := range sums {
		fmt.Fprintf(w, "%s\t%d\t%.16s\n", s.Table, s.Rows, s.SHA256)
	}
	w.Flush()
	if files != nil {
		fmt.Fprintf(cmd.OutOrStdout(), "Transcripts: %d session files from %s", files.Files, files.Dir)
		if files.Skipped > 0 {
			fmt.Fprintf(cmd.OutOrStdout(), " (%d lines that were not JSON, torn by a crash, left out)", files.Skipped)
		}
		fmt.Fprintln(cmd.OutOrStdout())
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Copied the board from %s to %s; both hold the same rows.\n", where(from), where(to))
	if postgres.IsURL(to) {
		fmt.Fprintf(cmd.OutOrStdout(), "Use it with: bonsai config set store.url %s (or BONSAI_DATABASE_URL)\n", postgres.Redact(to))
	}
	return nil
}

// openCopyStore opens the board at loc: a postgres:// URL or a SQLite file.
func openCopyStore(ctx context.Context, loc string) (copyStore, error) {
	if postgres.IsURL(loc) {
		return postgres.Open(ctx, loc)
	}
	return sqlite.Open(ctx, loc)
}

// same reports whether two locations name one board.
func same(a, b string) bool {
	if postgres.IsURL(a) || postgres.IsURL(b) {
		return a == b
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// where names a location without its password.
func where(loc string) string {
	if postgres.IsURL(loc) {
		return postgres.Redact(loc)
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
