package beneath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// sys is openat2, or rootFS on a kernel without it (before 5.6).
var sys fsys = kernelFS{}

// kernelFS resolves every path with one openat2 call that refuses links,
// "..", absolute paths and magic links (/proc/self/fd/…) below the root.
type kernelFS struct{}

// noOpenat2 is set once openat2 said ENOSYS.
var noOpenat2 = sync.OnceValue(func() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
	if err == nil {
		unix.Close(fd)
	}
	return errors.Is(err, unix.ENOSYS)
})

const resolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// at opens c below the directory dirfd, refusing links; root and shown
// name the path in errors.
func at(dirfd int, c string, flags int, root, shown string) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolve}
	for range 16 {
		fd, err := unix.Openat2(dirfd, c, &how)
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue // a rename raced the lookup
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
			return -1, refused(root, shown)
		default:
			return -1, &fs.PathError{Op: "open", Path: filepath.Join(root, shown), Err: err}
		}
	}
	return -1, fmt.Errorf("open %s: the path kept changing", filepath.Join(root, shown))
}

// openRoot opens the caller's root, which may itself be reached through
// links.
func openRoot(root string) (int, error) {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	return fd, nil
}

func (kernelFS) open(root, c string) (*os.File, error) {
	if noOpenat2() {
		return rootFS{}.open(root, c)
	}
	rfd, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	defer unix.Close(rfd)
	fd, err := at(rfd, c, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, root, c)
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(root, c)), nil
}

func (kernelFS) mkdirAll(root, c string, perm fs.FileMode) error {
	if noOpenat2() {
		return rootFS{}.mkdirAll(root, c, perm)
	}
	dfd, err := openRoot(root)
	if err != nil {
		return err
	}
	defer func() { unix.Close(dfd) }()
	for _, p := range prefixes(c) {
		name := filepath.Base(p)
		if err := unix.Mkdirat(dfd, name, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
			return &fs.PathError{Op: "mkdir", Path: filepath.Join(root, p), Err: err}
		}
		next, err := at(dfd, name, unix.O_PATH|unix.O_DIRECTORY, root, p)
		if err != nil {
			return err
		}
		unix.Close(dfd)
		dfd = next
	}
	return nil
}

func (kernelFS) writeFile(root, dir, name string, data []byte, perm fs.FileMode) error {
	if noOpenat2() {
		return rootFS{}.writeFile(root, dir, name, data, perm)
	}
	rfd, err := openRoot(root)
	if err != nil {
		return err
	}
	defer unix.Close(rfd)
	dfd, err := at(rfd, dir, unix.O_PATH|unix.O_DIRECTORY, root, dir)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	tmp := tempName(name)
	// O_EXCL never follows a link at the name; the rename then replaces
	// whatever is at name (a link included) with the new file.
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return &fs.PathError{Op: "create", Path: filepath.Join(root, dir, tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(root, dir, tmp))
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = unix.Renameat(dfd, tmp, dfd, name)
	}
	if werr != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", filepath.Join(root, dir, name), werr)
	}
	return nil
}
