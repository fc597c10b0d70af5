package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// The migrations, named NNNN_what.sql and numbered from 1 without gaps:
// Postgres's own, not SQLite's (the SQL differs), though each brings the
// schema to the same board. A released migration is never edited.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// ErrNotBonsai reports a schema that holds tables but no Bonsai schema
// version: somebody else's database, which Bonsai must not build in.
var ErrNotBonsai = errors.New("it has tables but no bonsai_schema table, so it is not a bonsai database; give Bonsai an empty database or schema of its own")

// SchemaError reports a database whose schema is newer than this binary
// knows: a newer Bonsai wrote it, and this one must not touch it.
type SchemaError = sqlstore.SchemaError

// SchemaVersion returns the newest schema version this binary knows.
func SchemaVersion() int { return sqlstore.SchemaVersion(migrationFiles) }

// versionTable is the table holding the schema version, in the store's
// schema (not wherever else search_path reaches).
func (db *DB) versionTable() string {
	return pgx.Identifier{db.schema, "bonsai_schema"}.Sanitize()
}

// migrate brings the schema to the newest version (sqlstore.Migrate),
// under the migration advisory lock (lockSchema). The version is the one
// row of bonsai_schema.
func (db *DB) migrate(ctx context.Context) error {
	return sqlstore.Migrate(ctx, db.sqlDB, sqlstore.Versioned{
		Files: migrationFiles,
		Version: func(ctx context.Context, sdb *sql.DB) (int, error) {
			var v int
			err := sdb.QueryRowContext(ctx, `SELECT version FROM `+db.versionTable()).Scan(&v)
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table: no board yet
				return 0, nil
			}
			return v, err
		},
		Lock: db.lockSchema,
		SetVersion: func(ctx context.Context, tx *sql.Tx, v int) error {
			_, err := tx.ExecContext(ctx, `UPDATE `+db.versionTable()+` SET version = $1`, v)
			return err
		},
		Where: db.where,
	})
}

// lockSchema takes the migration advisory lock and reads the version
// again. A schema with tables but no version is ErrNotBonsai; an empty one
// gets its version table, at version 0.
func (db *DB) lockSchema(ctx context.Context, tx *sql.Tx) (int, error) {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockMigrate, db.lockKey); err != nil {
		return 0, err
	}
	var hasVersion bool
	var tables, v int
	err := tx.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'bonsai_schema'),
		(SELECT count(*) FROM pg_tables WHERE schemaname = $1)`, db.schema).Scan(&hasVersion, &tables)
	switch {
	case err != nil:
		return 0, err
	case hasVersion:
		err := tx.QueryRowContext(ctx, `SELECT version FROM `+db.versionTable()).Scan(&v)
		return v, err
	case tables > 0:
		return 0, fmt.Errorf("database %s (schema %s): %w", db.where, db.schema, ErrNotBonsai)
	}
	_, err = tx.ExecContext(ctx, `CREATE TABLE `+db.versionTable()+` (
		version integer NOT NULL,
		one boolean PRIMARY KEY DEFAULT true CHECK (one));
		INSERT INTO `+db.versionTable()+` (version) VALUES (0)`)
	return 0, err
}

// Health is what Check finds of a Postgres board.
type Health struct {
	// Version is the schema's version, 0 when it has no board yet;
	// Supported the newest this binary knows (SchemaVersion).
	Version, Supported int
	// Tables counts the tables of the schema; more than 0 with a Version
	// of 0 is somebody else's schema (ErrNotBonsai).
	Tables int
}

// Check connects to the database at dbURL and reads its schema version
// without creating or migrating anything: what `bonsai doctor` looks at.
// Its errors name the server, never the password.
func Check(ctx context.Context, dbURL string) (Health, error) {
	h := Health{Supported: SchemaVersion()}
	where := Redact(dbURL)
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		return h, fmt.Errorf("database %s: not a valid Postgres URL: %w", where, unwrapParse(err))
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return h, fmt.Errorf("database %s: cannot connect: %w", where, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	schema, err := currentSchema(ctx, conn, where)
	if err != nil {
		return h, err
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1`, schema).Scan(&h.Tables); err != nil {
		return h, fmt.Errorf("database %s: %w", where, err)
	}
	err = conn.QueryRow(ctx, `SELECT version FROM `+pgx.Identifier{schema, "bonsai_schema"}.Sanitize()).Scan(&h.Version)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" { // no bonsai_schema: no board yet, or not Bonsai's
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("database %s: %w", where, err)
	}
	return h, nil
}
