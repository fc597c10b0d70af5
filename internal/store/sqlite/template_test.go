package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Creating a database runs every migration, and SQLite (C translated to
// Go) parsing that schema under -race was half the CPU of the contract
// suites, which open a new database for every subtest. Tests that are not
// about creating or migrating a database start instead from a copy of
// one Open created once per test binary: the same file, made by the same
// code (the Open, create and migrate tests still create their own).
var template = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "bonsai-sqlite-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "bonsai.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
})

// OpenCopyForTest opens a copy of the template database, in t's
// temporary directory, with opts: a new, migrated board.
func OpenCopyForTest(t *testing.T, opts ...Option) *DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	CopyTemplateForTest(t, path)
	db, err := Open(t.Context(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// CopyTemplateForTest writes the template database at path, readable by
// its user alone, for the tests that need the file's path before they
// open it (or open it more than once).
func CopyTemplateForTest(t *testing.T, path string) {
	t.Helper()
	b, err := template()
	if err != nil {
		t.Fatalf("the template database: %v", err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
