package sqlstore

import (
	"fmt"
	"io/fs"
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
