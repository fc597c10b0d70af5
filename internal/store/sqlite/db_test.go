package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func openTest(t *testing.T, opts ...Option) *DB {
	t.Helper()
	db := OpenCopyForTest(t, opts...)
	t.Cleanup(func() { db.Close() })
	return db
}

// TestOpen_PragmasOnEveryConnection checks that the DSN pragmas hold on
// every pooled connection, not only the first.
func TestOpen_PragmasOnEveryConnection(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	var conns []*sql.Conn
	for range 3 {
		c, err := db.sql.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for i, c := range conns {
		for pragma, want := range map[string]string{
			"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "30000", "synchronous": "1",
			"journal_size_limit": strconv.Itoa(walSizeLimit),
		} {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("connection %d: PRAGMA %s = %s, want %s", i, pragma, got, want)
			}
		}
	}
	for _, c := range conns {
		c.Close()
	}
}

func TestOpen_MigratesAndReopens(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	ctx := context.Background()
	for range 2 {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var v int
		if err := db.sql.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != SchemaVersion() || v < 1 {
			t.Errorf("user_version = %d, want %d", v, SchemaVersion())
		}
		db.Close()
	}
}

func TestOpen_NewerSchemaIsRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	newer := SchemaVersion() + 4
	if _, err := db.sql.Exec("PRAGMA user_version = " + strconv.Itoa(newer)); err != nil {
		t.Fatal(err)
	}
	db.Close()

	_, err = Open(ctx, path)
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("Open = %v, want a *SchemaError", err)
	}
	want := "database schema version " + strconv.Itoa(newer) + " is newer than this bonsai supports (" +
		strconv.Itoa(SchemaVersion()) + "); upgrade bonsai"
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
		t.Errorf("error = %q, want it to name %s and say %q", err, path, want)
	}
	// The database was not touched.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var v int
	if err := raw.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != newer {
		t.Errorf("user_version after refused open = %d, %v; want %d", v, err, newer)
	}
}

func TestOpen_CorruptFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	junk := []byte(strings.Repeat("this is not a database\n", 400))
	if err := os.WriteFile(path, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	if !errors.Is(err, ErrNotDatabase) {
		t.Fatalf("Open = %v, want ErrNotDatabase", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
	got, _ := os.ReadFile(path)
	if string(got) != string(junk) {
		t.Error("Open changed the corrupt file")
	}
}

func TestOpen_ForeignDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "other.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("CREATE TABLE notes (body TEXT)"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	_, err = Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "not a bonsai database") || strings.Count(err.Error(), path) != 1 {
		t.Fatalf("Open = %v, want an error naming %s once as not a bonsai database", err, path)
	}
}

func TestOpen_MissingDirectory(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "bonsai.db")
	_, err := Open(context.Background(), path)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open = %v, want an error naming %s and saying the directory is missing", err, path)
	}
	dir := t.TempDir()
	_, err = Open(context.Background(), dir)
	if err == nil || err.Error() != "database "+dir+": is a directory" {
		t.Fatalf("Open(a directory) = %v, want it to say %s is a directory", err, dir)
	}
}

// TestOpen_PathWithURICharacters checks that a path with characters that
// mean something in a URI still names the right file.
func TestOpen_PathWithURICharacters(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a?b#c %d")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bonsai.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not created at %s: %v", path, err)
	}
}
