package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

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
	return fileDSN(abs, url.Values{"_pragma": {"busy_timeout(5000)"}, "mode": {"ro"}})
}
