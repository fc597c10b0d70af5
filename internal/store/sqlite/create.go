package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
