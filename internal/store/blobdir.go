package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// AttachmentsDir is the directory beside a SQLite board's database file
// that holds its attachments' bytes, one file per SHA-256.
func AttachmentsDir(dbPath string) string {
	return filepath.Join(filepath.Dir(dbPath), "attachments")
}

// BlobDir keeps attachments' bytes as files named by their SHA-256 in
// Dir, never following a link: the directory must be a real directory,
// a file is written under a new random name and renamed into place, and
// a file read must be a regular file, the same one its name pointed to.
type BlobDir struct {
	Dir string
}

// Write stores data as Dir/sum, atomically.
func (b BlobDir) Write(sum string, data []byte) error {
	if !isSum(sum) {
		return fmt.Errorf("%q is not a SHA-256", sum)
	}
	if err := b.ensureDir(); err != nil {
		return err
	}
	p := filepath.Join(b.Dir, sum)
	if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() && st.Size() == int64(len(data)) {
		return nil // the same content is there
	}
	f, err := os.CreateTemp(b.Dir, ".new-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p) // replaces a link at p, never follows it
}

// ensureDir makes Dir (mode 0700) and checks it is a directory, not a
// link to one.
func (b BlobDir) ensureDir() error {
	if err := os.Mkdir(b.Dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	st, err := os.Lstat(b.Dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory (a link?); move it aside", b.Dir)
	}
	return nil
}

// Read returns the bytes of Dir/sum when it is a regular file.
func (b BlobDir) Read(sum string) ([]byte, error) {
	if !isSum(sum) {
		return nil, fmt.Errorf("%q is not a SHA-256: %w", sum, fs.ErrNotExist)
	}
	p := filepath.Join(b.Dir, sum)
	dst, err := os.Lstat(b.Dir)
	if err != nil {
		return nil, err
	}
	if !dst.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (a link?): %w", b.Dir, fs.ErrNotExist)
	}
	st, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: %w", p, fs.ErrNotExist)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if ost, err := f.Stat(); err != nil || !os.SameFile(st, ost) {
		return nil, fmt.Errorf("%s changed while it was opened", p)
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}

// isSum reports whether s is a lower-case hex SHA-256.
func isSum(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
