package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"path"

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
type SchemaError struct {
	Where     string // the database, without its password
	Version   int    // the database's schema version
	Supported int    // the newest version this binary knows
}

// Error implements the error interface.
func (e *SchemaError) Error() string {
	return fmt.Sprintf("database %s: schema version %d is newer than this bonsai supports (%d); upgrade bonsai",
		e.Where, e.Version, e.Supported)
}

// migrations returns the names of the embedded migrations in version
// order; migration n is the name at n-1.
func migrations() ([]string, error) { return sqlstore.MigrationNames(migrationFiles) }

// SchemaVersion returns the newest schema version this binary knows.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		panic(err) // the embedded files are broken: a build mistake
	}
	return len(ms)
}

// versionTable is the table holding the schema version, in the store's
// schema (not wherever else search_path reaches).
func (db *DB) versionTable() string {
	return pgx.Identifier{db.schema, "bonsai_schema"}.Sanitize()
}

// migrate brings the schema to the newest version. A current schema costs
// one query. Otherwise one transaction takes the migration advisory lock,
// re-reads the version (another process may have migrated meanwhile),
// applies the missing migrations and commits: Postgres's DDL is
// transactional, so two processes opening a new database at once migrate
// it once, and a failed migration leaves nothing half done.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	latest := len(ms)
	var v int
	err = db.pool.QueryRow(ctx, `SELECT version FROM `+db.versionTable()).Scan(&v)
	var pe *pgconn.PgError
	switch {
	case err == nil && v == latest:
		return nil
	case err == nil && v > latest:
		return &SchemaError{Where: db.where, Version: v, Supported: latest}
	case err != nil && !(errors.As(err, &pe) && pe.Code == "42P01"): // undefined_table
		return err
	}

	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockMigrate, db.lockKey); err != nil {
		return err
	}
	var hasVersion bool
	var tables int
	err = tx.QueryRow(ctx, `SELECT
		EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'bonsai_schema'),
		(SELECT count(*) FROM pg_tables WHERE schemaname = $1)`, db.schema).Scan(&hasVersion, &tables)
	if err != nil {
		return err
	}
	v = 0
	switch {
	case hasVersion:
		if err := tx.QueryRow(ctx, `SELECT version FROM `+db.versionTable()).Scan(&v); err != nil {
			return err
		}
	case tables > 0:
		return fmt.Errorf("database %s (schema %s): %w", db.where, db.schema, ErrNotBonsai)
	default:
		_, err := tx.Exec(ctx, `CREATE TABLE `+db.versionTable()+` (
			version integer NOT NULL,
			one boolean PRIMARY KEY DEFAULT true CHECK (one));
			INSERT INTO `+db.versionTable()+` (version) VALUES (0)`)
		if err != nil {
			return err
		}
	}
	if v > latest {
		return &SchemaError{Where: db.where, Version: v, Supported: latest}
	}
	for i, name := range ms[v:] {
		version := v + i + 1
		b, err := migrationFiles.ReadFile(path.Join("migrations", name))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, string(b)); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE `+db.versionTable()+` SET version = $1`, version); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return tx.Commit(ctx)
}
