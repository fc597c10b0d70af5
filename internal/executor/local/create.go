package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// CreateFile creates a new file holding data at a root-relative path
// without following any symlink: each directory on the way must be a real
// directory (missing ones are created) or the call fails with executor.ErrLink, and
// the file itself must not exist (fs.ErrExist, even for a dangling link).
// The runtime uses it for files it owns inside a repository, which may
// have committed a symlink in their place.
func (l *Executor) CreateFile(ctx context.Context, p string, data []byte) error {
	rel, err := l.rel(p)
	if err != nil {
		return l.pathErr("create", l.display(p), err)
	}
	if rel == "." {
		return l.pathErr("create", rel, syscall.EISDIR)
	}
	d, err := l.realDir(path.Dir(rel))
	if err != nil {
		return l.pathErr("create", rel, err)
	}
	defer d.Close()
	f, err := d.OpenFile(path.Base(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return l.pathErr("create", rel, err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = d.Remove(path.Base(rel))
		return l.pathErr("create", rel, werr)
	}
	return nil
}

// realDir opens the directory at rel, creating what is missing, and checks
// component by component that each one is a real directory and that the
// handle opened is the directory its parent names, so that no symlink (even
// one swapped in meanwhile) is followed.
func (l *Executor) realDir(rel string) (*os.Root, error) {
	cur, err := l.fsroot.OpenRoot(".")
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return cur, nil
	}
	for _, name := range strings.Split(rel, "/") {
		next, err := childDir(cur, name)
		cur.Close()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// childDir opens the real directory name inside parent, creating it when
// missing.
func childDir(parent *os.Root, name string) (*os.Root, error) {
	if err := parent.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	// OpenRoot follows a symlink, so the directory opened must then be the
	// one the name itself holds (checked after opening, so a swap in
	// between is caught too).
	d, err := parent.OpenRoot(name)
	if err != nil {
		return nil, executor.ErrLink
	}
	fi, err := d.Stat(".")
	var li fs.FileInfo
	if err == nil {
		li, err = parent.Lstat(name)
	}
	if err != nil || !li.IsDir() || !os.SameFile(fi, li) {
		d.Close()
		return nil, executor.ErrLink
	}
	return d, nil
}
