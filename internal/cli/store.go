package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/storemigrate"
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
	if from == "" {
		u, err := a.storeURL()
		if err != nil {
			return err
		}
		if from = u; from == "" {
			d, err := a.dataDir()
			if err != nil {
				return err
			}
			from = d.DB()
		}
	}
	m := storemigrate.Migration{From: from, To: to, Sessions: sessions, Locations: storemigrate.Locations{
		IsURL: postgres.IsURL, Redact: postgres.Redact, Open: openCopyStore}}
	if err := m.Check(); err != nil {
		return &usageError{Err: err}
	}
	res, err := m.Run(cmd.Context())
	if err != nil {
		return err
	}
	m.Write(cmd.OutOrStdout(), res)
	return nil
}

// openCopyStore opens the board at loc: a postgres:// URL or a SQLite file.
func openCopyStore(ctx context.Context, loc string) (storemigrate.Board, error) {
	if postgres.IsURL(loc) {
		return postgres.Open(ctx, loc)
	}
	return sqlite.Open(ctx, loc)
}
