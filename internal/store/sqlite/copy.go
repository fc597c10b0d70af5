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

// Schema lists the database's tables and their columns, generated ones
// included.
func (db *DB) Schema(ctx context.Context) (map[string][]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT m.name, c.name FROM sqlite_schema m, pragma_table_xinfo(m.name) c
		WHERE m.type = 'table' ORDER BY m.name, c.cid`)
	if err != nil {
		return nil, fmt.Errorf("read the schema: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return nil, fmt.Errorf("read the schema: %w", err)
		}
		out[t] = append(out[t], c)
	}
	return out, rows.Err()
}

// columnList is t's columns for a SELECT or an INSERT.
func columnList(t store.Table) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// ReadTable reads every row of t in rowid order: the order rows were
// written, for the tables where it matters.
func (db *DB) ReadTable(ctx context.Context, t store.Table, each func(row []any) error) error {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+columnList(t)+` FROM `+t.Name+` ORDER BY rowid`)
	if err != nil {
		return fmt.Errorf("read %s: %w", t.Name, err)
	}
	defer rows.Close()
	vals := make([]any, len(t.Columns))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("read %s: %w", t.Name, err)
		}
		for i, c := range t.Columns {
			if vals[i], err = fromSQLite(c, vals[i]); err != nil {
				return fmt.Errorf("read %s: %w", t.Name, err)
			}
		}
		if err := each(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// fromSQLite converts a value as the driver scanned it to its kind's type.
func fromSQLite(c store.Column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch c.Kind {
	case store.Bool:
		if n, ok := v.(int64); ok {
			return n != 0, nil
		}
	case store.Int:
		if n, ok := v.(int64); ok {
			return n, nil
		}
	case store.Real:
		switch n := v.(type) {
		case float64:
			return n, nil
		case int64:
			return float64(n), nil
		}
	case store.Text, store.JSON:
		switch s := v.(type) {
		case string:
			return s, nil
		case []byte:
			return string(s), nil
		}
	}
	return nil, fmt.Errorf("column %s: unexpected %T", c.Name, v)
}

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
		args := []any{}
		return read(func(t store.Table, row []any) error {
			st, ok := stmts[t.Name]
			if !ok {
				q := `INSERT INTO ` + t.Name + ` (` + columnList(t) + `) VALUES (?` + strings.Repeat(", ?", len(t.Columns)-1) + `)`
				var err error
				if st, err = tx.PrepareContext(ctx, q); err != nil {
					return fmt.Errorf("write %s: %w", t.Name, err)
				}
				stmts[t.Name] = st
			}
			args = append(args[:0], row...)
			for i, v := range args {
				if b, ok := v.(bool); ok {
					args[i] = 0
					if b {
						args[i] = 1
					}
				}
			}
			if _, err := st.ExecContext(ctx, args...); err != nil {
				return fmt.Errorf("write %s: %w", t.Name, err)
			}
			return nil
		})
	})
}
