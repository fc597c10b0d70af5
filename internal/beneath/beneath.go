package beneath

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrLink is wrapped by the error of an operation that met a symbolic
// link (or a path leaving the root) below the root.
var ErrLink = errors.New("a symbolic link or a path outside the root was refused")

// refused is the error of rel below root meeting a link.
func refused(root, rel string) error {
	return fmt.Errorf("%s: %w (the host never follows links in a directory the sandbox can write; remove it)", filepath.Join(root, rel), ErrLink)
}

// clean checks rel: relative, and without ".." once cleaned; it returns
// its cleaned, slash-separated form ("." for the root).
func clean(root, rel string) (string, error) {
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", refused(root, rel)
	}
	c := filepath.ToSlash(filepath.Clean(rel))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", refused(root, rel)
	}
	return c, nil
}

// ReadFile returns the content of the regular file rel below root, at
// most max bytes: a larger file is an error, and so are a link, a
// directory, a FIFO or a device.
func ReadFile(root, rel string, max int64) ([]byte, error) {
	return readFile(sys, root, rel, max)
}

func readFile(s fsys, root, rel string, max int64) ([]byte, error) {
	f, err := openFile(s, root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(root, rel), err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("read %s: larger than %d bytes", filepath.Join(root, rel), max)
	}
	return b, nil
}

// Open opens the regular file rel below root for reading.
func Open(root, rel string) (*os.File, error) { return openFile(sys, root, rel) }

func openFile(s fsys, root, rel string) (*os.File, error) {
	c, err := clean(root, rel)
	if err != nil {
		return nil, err
	}
	f, err := s.open(root, c)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: not a regular file (%s)", filepath.Join(root, rel), fi.Mode().Type())
	}
	return f, nil
}

// WriteFile writes data to the file rel below root, whole: to a new
// file of a temporary name in the same directory, renamed over rel, so a
// link at rel is replaced, never written through. The directory must
// exist (MkdirAll).
func WriteFile(root, rel string, data []byte, perm fs.FileMode) error {
	return writeFile(sys, root, rel, data, perm)
}

func writeFile(s fsys, root, rel string, data []byte, perm fs.FileMode) error {
	c, err := clean(root, rel)
	if err != nil {
		return err
	}
	if c == "." {
		return fmt.Errorf("write %s: the root is not a file", root)
	}
	dir, name := split(c)
	return s.writeFile(root, dir, name, data, perm)
}

// MkdirAll creates the directory rel below root and its missing parents
// with perm; an existing directory is fine, a link on the way is not.
func MkdirAll(root, rel string, perm fs.FileMode) error {
	return mkdirAll(sys, root, rel, perm)
}

func mkdirAll(s fsys, root, rel string, perm fs.FileMode) error {
	c, err := clean(root, rel)
	if err != nil {
		return err
	}
	if c == "." {
		return nil
	}
	return s.mkdirAll(root, c, perm)
}

// split splits a cleaned slash path into its directory ("." for
// none) and last element.
func split(c string) (dir, name string) {
	i := strings.LastIndexByte(c, '/')
	if i < 0 {
		return ".", c
	}
	return c[:i], c[i+1:]
}

// fsys is one way of resolving paths below a root: the kernel's
// openat2, or os.Root with a check of every component.
type fsys interface {
	// open opens the cleaned path c below root for reading, without
	// blocking on a FIFO.
	open(root, c string) (*os.File, error)
	// writeFile writes name in the directory dir below root, through a
	// temporary file renamed over it.
	writeFile(root, dir, name string, data []byte, perm fs.FileMode) error
	// mkdirAll creates the directory c below root and its parents.
	mkdirAll(root, c string, perm fs.FileMode) error
}

// tempName is a fresh name beside name for WriteFile.
func tempName(name string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf(".%s.%x.tmp", name, b)
}
