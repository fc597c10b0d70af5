package doctor

import (
	"fmt"
	"strings"
)

// Schema is what a store's read-only check found: its schema version,
// the version this binary knows, and, for SQLite, what PRAGMA
// quick_check reported and, for Postgres, how many tables there are.
type Schema struct {
	Version, Supported int
	Problems           []string
	Tables             int
}

// SQLite is the database check of bonsai.db at path, from its quick
// check (h, err); missing reports a file that does not exist and
// notBoard one that is empty or not a SQLite database. current reports
// a database that opens without a change (intact, its schema current).
func SQLite(path string, h Schema, err error, missing, notBoard bool) (c Check, current bool) {
	c = Check{Name: "database"}
	backup := fmt.Sprintf("stop Bonsai (bonsai service uninstall, stop bonsai up), move %s aside and restore a backup of it", path)
	switch {
	case missing:
		c.Status, c.Detail = Skip, path+" does not exist yet; the first board command creates it"
	case notBoard:
		c.Status, c.Detail, c.Fix = Fail, err.Error(), backup
	case err != nil:
		c.Status, c.Detail, c.Fix = Fail, err.Error(), "make the file yours and readable: chmod 600 "+path
	case len(h.Problems) > 0:
		c.Status, c.Detail = Fail, fmt.Sprintf("PRAGMA quick_check found damage in %s: %s", path, strings.Join(h.Problems, "; "))
		c.Fix = backup + "; or salvage what SQLite can read: sqlite3 " + path + " .recover | sqlite3 recovered.db"
	case h.Version > h.Supported:
		c.Status, c.Detail = Fail, fmt.Sprintf("%s has schema version %d, newer than this bonsai knows (%d)", path, h.Version, h.Supported)
		c.Fix = "upgrade bonsai to the version that wrote it"
	case h.Version < h.Supported:
		c.Status, c.Detail = OK, fmt.Sprintf("%s is intact; schema version %d, which the next command migrates to %d", path, h.Version, h.Supported)
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("%s is intact (PRAGMA quick_check); schema version %d", path, h.Version)
		return c, true
	}
	return c, false
}

// Postgres is the database check of the Postgres board at where (its
// URL without the password), from a connection that read its schema
// version and changed nothing (h, err). current reports a board that
// opens without a change.
func Postgres(where string, h Schema, err error) (c Check, current bool) {
	c = Check{Name: "database"}
	switch {
	case err != nil:
		c.Status, c.Detail = Fail, err.Error()
		c.Fix = "check that the server runs and that BONSAI_DATABASE_URL or store.url names it (docs/postgres.md)"
	case h.Version == 0 && h.Tables > 0:
		c.Status, c.Detail = Fail, fmt.Sprintf("%s holds %d tables but no Bonsai board", where, h.Tables)
		c.Fix = "give Bonsai an empty database or schema of its own (search_path in the URL)"
	case h.Version == 0:
		c.Status, c.Detail = Skip, where+" holds no board yet; the first board command creates it"
	case h.Version > h.Supported:
		c.Status, c.Detail = Fail, fmt.Sprintf("%s has schema version %d, newer than this bonsai knows (%d)", where, h.Version, h.Supported)
		c.Fix = "upgrade bonsai to the version that wrote it"
	case h.Version < h.Supported:
		c.Status, c.Detail = OK, fmt.Sprintf("%s is reachable; schema version %d, which the next command migrates to %d", where, h.Version, h.Supported)
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("%s is reachable; schema version %d", where, h.Version)
		return c, true
	}
	return c, false
}
