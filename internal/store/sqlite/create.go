package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ErrEmptyDatabase reports a database file of 0 bytes. SQLite would take it
// for a new, empty board; but Open never leaves such a file behind (see
// createNew), so it is somebody's board lost to a failed copy or restore,
// and Open refuses it rather than start a new board over it.
var ErrEmptyDatabase = errors.New("the file is empty (0 bytes), so it holds no board")

// fileMode is the mode of a new database; SQLite gives its -wal and -shm
// files the database's mode.
const fileMode fs.FileMode = 0o600

// ensureFile makes sure abs is a database file Open may use: a missing one
// is created (see createNew), an empty one is refused.
func ensureFile(ctx context.Context, abs string, opts []Option) error {
	_, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		if _, derr := os.Stat(filepath.Dir(abs)); derr != nil {
			return fmt.Errorf("database %s: cannot open it: %w", abs, derr)
		}
		return createNew(ctx, abs, opts)
	}
	return usableFile(abs)
}

// usableFile refuses what cannot be the database file abs: a missing
// file, a directory, an empty file.
func usableFile(abs string) error {
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return fmt.Errorf("database %s: %w", abs, err)
	case fi.IsDir():
		return fmt.Errorf("database %s: is a directory", abs)
	case fi.Mode().IsRegular() && fi.Size() == 0:
		return fmt.Errorf("database %s: %w; restore a backup if it should hold one, or remove the file to start a new board", abs, ErrEmptyDatabase)
	}
	return nil
}

// createNew creates the database abs with its schema, readable by its user
// alone. The file appears complete or not at all: the database is built in
// a temporary file next to it and linked into place, so no process ever
// sees a half-made database (or an empty file, which ensureFile refuses),
// and of several processes creating it at once, one wins and the others
// use its file.
func createNew(ctx context.Context, abs string, opts []Option) error {
	f, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".new*")
	if err != nil {
		return fmt.Errorf("database %s: create it: %w", abs, err)
	}
	tmp := f.Name()
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(tmp + suffix)
		}
	}()
	err = f.Chmod(fileMode)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("database %s: create it: %w", abs, err)
	}
	db, err := open(ctx, tmp, opts)
	if err != nil {
		return err
	}
	// Closing the last connection checkpoints the WAL into the file.
	if err := db.Close(); err != nil {
		return fmt.Errorf("database %s: create it: %w", abs, err)
	}
	if err := os.Link(tmp, abs); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("database %s: create it: %w", abs, err)
	}
	return nil
}

// Health is what QuickCheck finds of a database file.
type Health struct {
	// Version is the file's schema version; Supported the newest this
	// binary knows (SchemaVersion).
	Version, Supported int
	// Problems are the lines of PRAGMA quick_check (at most maxProblems);
	// none when the file is intact.
	Problems []string
}

// maxProblems bounds the problems QuickCheck reports.
const maxProblems = 10

// QuickCheck opens the database file at path read-only, without creating
// or migrating it, and reads its schema version and the answer of PRAGMA
// quick_check: the checks of integrity_check but the slow ones that match
// indexes to their tables. When the damage stops the check itself, what it
// found so far is the answer. A missing file is an error wrapping
// fs.ErrNotExist; an empty one, ErrEmptyDatabase; a file that is not a
// database, ErrNotDatabase.
func QuickCheck(ctx context.Context, path string) (Health, error) {
	h := Health{Supported: SchemaVersion()}
	abs, err := filepath.Abs(path)
	if err != nil {
		return h, fmt.Errorf("database %s: %w", path, err)
	}
	if err := usableFile(abs); err != nil {
		return h, err
	}
	db := &DB{path: abs}
	// mode=ro opens without creating or writing; the WAL index (-shm) is
	// still shared with writers, so the check sees their committed work.
	sdb, err := sql.Open("sqlite", readOnlyDSN(abs))
	if err != nil {
		return h, fmt.Errorf("database %s: %w", abs, err)
	}
	defer sdb.Close()
	if err := sdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&h.Version); err != nil {
		return h, db.openError(err)
	}
	rows, err := sdb.QueryContext(ctx, fmt.Sprintf("PRAGMA quick_check(%d)", maxProblems))
	if err != nil {
		return h, db.openError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return h, db.openError(err)
		}
		for _, l := range strings.Split(line, "\n") {
			if l = strings.TrimSpace(l); l != "ok" && l != "" && !strings.HasPrefix(l, "*** in database") {
				h.Problems = append(h.Problems, l)
			}
		}
	}
	if err := rows.Err(); err != nil && len(h.Problems) == 0 {
		// The check itself stopped at the damage before saying anything.
		return h, db.openError(err)
	}
	return h, nil
}

// readOnlyDSN is the data source name opening the file at abs read-only.
func readOnlyDSN(abs string) string {
	return fileDSN(abs, url.Values{"_pragma": {busyTimeout}, "mode": {"ro"}})
}
