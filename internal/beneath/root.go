package beneath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// rootFS resolves paths with os.Root, which never leaves the root, and
// refuses a link on any component by Lstat first. A link swapped in
// between the check and the open is followed, but only to a file below
// the root: os.Root refuses the rest.
type rootFS struct{}

// prefixes returns "a", "a/b", "a/b/c" for "a/b/c" ("" for ".").
func prefixes(c string) []string {
	if c == "." {
		return nil
	}
	parts := strings.Split(c, "/")
	out := make([]string, len(parts))
	for i := range parts {
		out[i] = strings.Join(parts[:i+1], "/")
	}
	return out
}

// noLinks refuses a link on any existing component of c; a missing one
// ends the check (what follows does not exist either).
func noLinks(r *os.Root, root, c string) error {
	for _, p := range prefixes(c) {
		fi, err := r.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return rootErr(root, p, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return refused(root, p)
		}
	}
	return nil
}

// rootErr words an os.Root error: a path escaping it is a refused link.
func rootErr(root, p string, err error) error {
	if strings.Contains(err.Error(), "escapes") {
		return refused(root, p)
	}
	return err
}

func (rootFS) open(root, c string) (*os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if err := noLinks(r, root, c); err != nil {
		return nil, err
	}
	f, err := r.OpenFile(c, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		if isLoop(err) {
			return nil, refused(root, c)
		}
		return nil, rootErr(root, c, err)
	}
	return f, nil
}

func (rootFS) mkdirAll(root, c string, perm fs.FileMode) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, p := range prefixes(c) {
		if err := r.Mkdir(p, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return rootErr(root, p, err)
		}
		fi, err := r.Lstat(p)
		if err != nil {
			return rootErr(root, p, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return refused(root, p)
		}
		if !fi.IsDir() {
			return fmt.Errorf("mkdir %s: not a directory", filepath.Join(root, p))
		}
	}
	return nil
}

func (rootFS) writeFile(root, dir, name string, data []byte, perm fs.FileMode) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := noLinks(r, root, dir); err != nil {
		return err
	}
	tmp := path.Join(dir, tempName(name))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, perm)
	if err != nil {
		return rootErr(root, tmp, err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = r.Rename(tmp, path.Join(dir, name))
	}
	if werr != nil {
		_ = r.Remove(tmp)
		return fmt.Errorf("write %s: %w", filepath.Join(root, dir, name), werr)
	}
	return nil
}
