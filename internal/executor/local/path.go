package local

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// rel turns a path given by a caller into a clean root-relative path with
// forward slashes, refusing anything that lexically leaves the root. Symlinks
// are checked later, when the path is used.
func (l *Executor) rel(p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", executor.ErrNUL
	}
	if strings.HasPrefix(p, "~") {
		return "", executor.ErrHome
	}
	if filepath.IsAbs(p) {
		c := filepath.Clean(p)
		for _, base := range []string{l.given, l.root} {
			if c == base {
				return ".", nil
			}
			if strings.HasPrefix(c, base+string(filepath.Separator)) {
				return filepath.ToSlash(c[len(base)+1:]), nil
			}
		}
		return "", executor.ErrOutsideRoot
	}
	c := filepath.Clean(p)
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return "", executor.ErrOutsideRoot
	}
	return filepath.ToSlash(c), nil
}

// display is how a path given by a caller appears in errors: relative to
// the root when it is inside, the caller's own words when relative, and
// empty for absolute paths outside, so that no host path shows.
func (l *Executor) display(p string) string {
	if r, err := l.rel(p); err == nil {
		return r
	}
	if filepath.IsAbs(p) {
		return ""
	}
	return p
}

// hostPath resolves a root-relative path to an absolute host path with all
// symlinks evaluated, and refuses results outside the root. Missing trailing
// components are allowed (resolved as far as they exist).
func (l *Executor) hostPath(rel string) (string, error) {
	full := filepath.Join(l.root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return "", err
	}
	if !l.inside(real) {
		return "", executor.ErrOutsideRoot
	}
	return real, nil
}

// inside reports whether an absolute, symlink-free path is the root or below it.
func (l *Executor) inside(p string) bool {
	return p == l.root || strings.HasPrefix(p, l.root+string(filepath.Separator))
}

// pathErr wraps an error from the os package so that it names the
// root-relative path and never a host path.
func (l *Executor) pathErr(op, shown string, err error) error {
	if err == nil {
		return nil
	}
	var mine *executor.PathError
	var pe *fs.PathError
	switch {
	case errors.As(err, &mine):
		err = mine.Err
	case errors.Is(err, executor.ErrOutsideRoot), errors.Is(err, executor.ErrNUL), errors.Is(err, executor.ErrHome):
		// already clean
	case errors.As(err, &pe):
		err = cleanErr(pe.Err)
	default:
		var errno syscall.Errno
		if errors.As(err, &errno) {
			err = errno
		}
	}
	return &executor.PathError{Op: op, Path: shown, Err: err}
}

// cleanErr maps the inner error of an os.Root operation to one that holds no
// path: os.Root reports symlink escapes with an unexported error.
func cleanErr(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	if strings.Contains(err.Error(), "escapes from parent") {
		return executor.ErrOutsideRoot
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return cleanErr(pe.Err)
	}
	return err
}
