package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// The migrations, named NNNN_what.sql and numbered from 1 without gaps. A
// migration is never edited once released; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// SchemaVersion returns the newest schema version this binary knows.
func SchemaVersion() int { return sqlstore.SchemaVersion(migrationFiles) }

// migrate brings the schema to the newest version (sqlstore.Migrate). The
// version lives in SQLite's user_version header field, so checking a
// current database is one query. The migrating transaction is BEGIN
// IMMEDIATE (the DSN's _txlock): it holds the write lock when it reads the
// version again.
func (db *DB) migrate(ctx context.Context) error {
	return sqlstore.Migrate(ctx, db.sql, sqlstore.Versioned{
		Files: migrationFiles,
		Version: func(ctx context.Context, sdb *sql.DB) (int, error) {
			var v int
			err := sdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
			return v, err
		},
		Lock: lockSchema,
		SetVersion: func(ctx context.Context, tx *sql.Tx, v int) error {
			// PRAGMA takes no bound parameters; v is an int.
			_, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(v))
			return err
		},
		Where: db.path,
	})
}

// lockSchema reads the version again in the migrating transaction. A
// database without a version must be empty: never build the board inside
// someone else's SQLite file.
func lockSchema(ctx context.Context, tx *sql.Tx) (int, error) {
	var v, n int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil || v > 0 {
		return v, err
	}
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		return 0, err
	}
	if n > 0 {
		return 0, errors.New("it has tables but no bonsai schema version, so it is not a bonsai database")
	}
	return 0, nil
}
