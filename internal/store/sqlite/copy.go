package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var _ store.Copier = (*DB)(nil)

// WriteTables writes the rows read gives into this database, which must
// hold no board yet, in one transaction.
func (db *DB) WriteTables(ctx context.Context, read func(put func(t store.Table, row []any) error) error) error {
	return db.WriteSQL(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM projects) + (SELECT count(*) FROM events)`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return board.Errorf(board.ECONFLICT, "database %s already holds a board; copy into a new file", db.path)
		}
		stmts := map[string]*sql.Stmt{}
		defer func() {
			for _, st := range stmts {
				st.Close()
			}
		}()
		return read(func(t store.Table, row []any) error {
			st, ok := stmts[t.Name]
			if !ok {
				q := `INSERT INTO ` + t.Name + ` (` + strings.Join(t.Names(), ", ") + `) VALUES (?` + strings.Repeat(", ?", len(t.Columns)-1) + `)`
				var err error
				if st, err = tx.PrepareContext(ctx, q); err != nil {
					return fmt.Errorf("write %s: %w", t.Name, err)
				}
				stmts[t.Name] = st
			}
			if _, err := st.ExecContext(ctx, row...); err != nil {
				return fmt.Errorf("write %s: %w", t.Name, err)
			}
			return nil
		})
	})
}
