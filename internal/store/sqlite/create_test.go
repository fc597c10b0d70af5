package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestOpen_NewDatabaseIsPrivate checks that a new database, and the -wal
// and -shm files SQLite makes beside it, are readable by their user alone
// whatever the umask and the directory's mode.
func TestOpen_NewDatabaseIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bonsai.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A write keeps the WAL and the shared memory file open.
	if _, err := db.sql.Exec("PRAGMA user_version = user_version"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bonsai.db", "bonsai.db-wal", "bonsai.db-shm"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", name, fi.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".new") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestOpen_EmptyFileIsRefused checks that a 0-byte database file, which
// SQLite would take for a new board, is refused with an error that names it
// and says what to do, and is left as it was.
func TestOpen_EmptyFileIsRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	if !errors.Is(err, ErrEmptyDatabase) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "restore a backup") {
		t.Fatalf("Open = %v, want ErrEmptyDatabase naming %s and saying what to do", err, path)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != 0 {
		t.Fatalf("empty file changed: %v, %v", fi, err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + suffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s%s created: %v", path, suffix, err)
		}
	}
}
