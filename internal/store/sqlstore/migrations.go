package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// MigrationNames returns the names of an engine's migrations, the files of
// fsys's directory migrations, in version order, checking that they are
// named NNNN_what.sql and numbered from 1 without gaps. Opening a current
// database needs only their number, not their text.
func MigrationNames(fsys fs.FS) ([]string, error) {
	entries, err := fs.ReadDir(fsys, "migrations")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries { // ReadDir sorts by name
		prefix, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(prefix)
		if !ok || err != nil || v != len(names)+1 {
			return nil, fmt.Errorf("migration %s: want a name starting %04d_", e.Name(), len(names)+1)
		}
		names = append(names, e.Name())
	}
	return names, nil
}

// SchemaVersion returns the newest schema version of the migrations in
// fsys (MigrationNames).
func SchemaVersion(fsys fs.FS) int {
	names, err := MigrationNames(fsys)
	if err != nil {
		panic(err) // the embedded files are broken: a build mistake
	}
	return len(names)
}

// Versioned is how an engine keeps its schema version, for Migrate.
type Versioned struct {
	// Files holds the engine's migrations (MigrationNames).
	Files fs.FS
	// Version reads the schema version outside any transaction: 0 when
	// the database holds none yet.
	Version func(ctx context.Context, db *sql.DB) (int, error)
	// Lock runs first in the transaction that migrates: it takes what
	// makes a second migrating process wait, reads the version again
	// (that process may have migrated meanwhile), and refuses a database
	// that holds tables but no version, somebody else's.
	Lock func(ctx context.Context, tx *sql.Tx) (int, error)
	// SetVersion records that the schema is at version v.
	SetVersion func(ctx context.Context, tx *sql.Tx, v int) error
	// Where names the database in a SchemaError.
	Where string
}

// SchemaError reports a database whose schema is newer than this binary
// knows: a newer Bonsai wrote it, and this one must not touch it.
type SchemaError struct {
	Where     string // the database: its file, or its URL without the password
	Version   int    // the database's schema version
	Supported int    // the newest version this binary knows
}

// Error implements the error interface.
func (e *SchemaError) Error() string {
	return fmt.Sprintf("%s: database schema version %d is newer than this bonsai supports (%d); upgrade bonsai",
		e.Where, e.Version, e.Supported)
}

// Migrate brings the schema of db to the newest version of s.Files. A
// current schema costs one query, and the migrations' text is read only
// when one must run. Otherwise one transaction (s.Lock) applies the
// missing migrations in order, recording the version after each, and
// commits: both engines' DDL is transactional, so two processes opening a
// new database at once migrate it once, and a failed migration leaves
// nothing half done.
func Migrate(ctx context.Context, db *sql.DB, s Versioned) error {
	names, err := MigrationNames(s.Files)
	if err != nil {
		return err
	}
	latest := len(names)
	v, err := s.Version(ctx, db)
	switch {
	case err != nil:
		return err
	case v == latest:
		return nil
	case v > latest:
		return &SchemaError{Where: s.Where, Version: v, Supported: latest}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if v, err = s.Lock(ctx, tx); err != nil {
		return err
	}
	if v > latest {
		return &SchemaError{Where: s.Where, Version: v, Supported: latest}
	}
	for i, name := range names[v:] {
		b, err := fs.ReadFile(s.Files, path.Join("migrations", name))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(b)); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
		if err := s.SetVersion(ctx, tx, v+i+1); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return tx.Commit()
}
