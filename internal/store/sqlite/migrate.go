package sqlite

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"path"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// The migrations, named NNNN_what.sql and numbered from 1 without gaps. A
// migration is never edited once released; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrationNames returns the names of the embedded migrations in version
// order.
func migrationNames() ([]string, error) { return sqlstore.MigrationNames(migrationFiles) }

// migrations returns the embedded migrations in version order.
func migrations() ([]migration, error) {
	names, err := migrationNames()
	if err != nil {
		return nil, err
	}
	ms := make([]migration, 0, len(names))
	for i, name := range names {
		b, err := migrationFiles.ReadFile(path.Join("migrations", name))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: i + 1, name: name, sql: string(b)})
	}
	return ms, nil
}

// SchemaVersion returns the newest schema version this binary knows.
func SchemaVersion() int {
	names, err := migrationNames()
	if err != nil {
		panic(err) // the embedded files are broken: a build mistake
	}
	return len(names)
}

// migrate brings the schema to the newest version. The version lives in
// SQLite's user_version header field, so checking a current database is one
// query. Upgrades run in one IMMEDIATE transaction that re-reads the version
// after taking the write lock, so two processes opening a new database at
// once migrate it exactly once.
func (db *DB) migrate(ctx context.Context) error {
	names, err := migrationNames()
	if err != nil {
		return err
	}
	latest := len(names)
	var v int
	if err := db.sql.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v == latest {
		return nil
	}
	if v > latest {
		return &SchemaError{Path: db.path, Version: v, Supported: latest}
	}
	ms, err := migrations()
	if err != nil {
		return err
	}

	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v > latest {
		return &SchemaError{Path: db.path, Version: v, Supported: latest}
	}
	if v == 0 {
		// A database without a version must be empty: never build the
		// board inside someone else's SQLite file.
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return errors.New("it has tables but no bonsai schema version, so it is not a bonsai database")
		}
	}
	for _, m := range ms[v:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		// PRAGMA takes no bound parameters; m.version is an int.
		if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.version)); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return tx.Commit()
}
