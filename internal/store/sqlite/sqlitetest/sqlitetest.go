// Package sqlitetest opens SQLite boards for tests: a new database file
// starts as a copy of one sqlite.Open created once per test process, so a
// test does not run every migration again. SQLite is C translated to Go,
// and parsing the schema's migrations under -race was a third of the CPU
// of the heartbeat's tests and half of the store's. The copy is the file
// the same code made; tests about creating or migrating a database open
// theirs with sqlite.Open.
package sqlitetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// template is the bytes of a new, migrated database file.
var template = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "bonsai-sqlitetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "bonsai.db")
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
})

// Open is sqlite.Open for tests: when no file is at path it first writes
// the template there (readable by its user alone, as sqlite.Open creates
// one), then opens it with opts.
func Open(ctx context.Context, path string, opts ...sqlite.Option) (*sqlite.DB, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		b, err := template()
		if err != nil {
			return nil, fmt.Errorf("sqlitetest: the template database: %w", err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, fmt.Errorf("sqlitetest: %w", err)
		}
	}
	return sqlite.Open(ctx, path, opts...)
}
