package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// Options configures a local executor.
type Options struct {
	// Env lists extra variable names (or patterns with "*") that commands
	// inherit besides the built-in allowlist. The denylist still wins.
	Env []string
	// Durable makes WriteFile fsync the new file before renaming it over
	// the old one, so that the new content survives a power loss. It costs
	// a few milliseconds a write; without it writes are still atomic for
	// readers and for process crashes.
	Durable bool
}

// Executor is an executor.Executor working directly on the host
// filesystem under one root. File operations go through an os.Root, so no
// path, symlink or race can reach outside it.
type Executor struct {
	given   string // absolute root as given
	root    string // absolute root with symlinks evaluated
	fsroot  *os.Root
	env     []string
	shell   []string
	durable bool
	marks   []string // KEY=VALUE pairs every command gets (Mark)
}

var _ executor.Executor = (*Executor)(nil)

// New opens a local executor on the directory root. On Linux it also
// hides the calling process's environment and memory from the commands it
// will run (see protectProcess).
func New(root string, opts Options) (*Executor, error) {
	protectProcess()
	given, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	real, err := filepath.EvalSymlinks(given)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	return &Executor{given: given, root: real, fsroot: r, env: opts.Env, shell: findShell(), durable: opts.Durable}, nil
}

// Close releases the root directory handle.
func (l *Executor) Close() error { return l.fsroot.Close() }

// Root returns the host path of the workspace root, for wiring code only:
// never show it to the model.
func (l *Executor) Root() string { return l.root }

// Resolve returns the host path a root-relative path refers to, with
// symlinks evaluated, or an error if it is outside the root. Components
// that do not exist yet are kept as given.
func (l *Executor) Resolve(p string) (string, error) {
	rel, err := l.rel(p)
	if err != nil {
		return "", l.pathErr("resolve", l.display(p), err)
	}
	// Walk up to the deepest existing ancestor, then check it.
	missing := ""
	cur := rel
	for {
		host, err := l.hostPath(cur)
		if err == nil {
			return filepath.Join(host, filepath.FromSlash(missing)), nil
		}
		if errors.Is(err, executor.ErrOutsideRoot) || !errors.Is(err, fs.ErrNotExist) || cur == "." {
			return "", l.pathErr("resolve", rel, err)
		}
		if _, lerr := l.fsroot.Lstat(cur); lerr == nil {
			// A dangling symlink: refuse rather than guess where it goes.
			return "", l.pathErr("resolve", rel, executor.ErrOutsideRoot)
		}
		missing = path.Join(path.Base(cur), missing)
		cur = path.Dir(cur)
	}
}

// Rel implements executor.Executor.
func (l *Executor) Rel(p string) (string, error) {
	rel, err := l.rel(p)
	if err != nil {
		return "", l.pathErr("resolve", l.display(p), err)
	}
	return rel, nil
}

// ReadFile implements executor.Executor.
func (l *Executor) ReadFile(ctx context.Context, p string) ([]byte, error) {
	rel, err := l.rel(p)
	if err != nil {
		return nil, l.pathErr("read", l.display(p), err)
	}
	f, err := openRegular(l.fsroot, rel)
	if err != nil {
		return nil, l.pathErr("read", rel, err)
	}
	defer f.Close()
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Size() < 1<<30 {
		size = int(fi.Size())
	}
	b, err := readFrom(f, make([]byte, 0, size+512))
	if err != nil {
		return nil, l.pathErr("read", rel, err)
	}
	return b, nil
}

// Stat implements executor.Executor.
func (l *Executor) Stat(ctx context.Context, p string) (executor.Entry, error) {
	rel, err := l.rel(p)
	if err != nil {
		return executor.Entry{}, l.pathErr("stat", l.display(p), err)
	}
	fi, err := l.fsroot.Stat(rel)
	if err != nil {
		return executor.Entry{}, l.pathErr("stat", rel, err)
	}
	e := entryOf(fi)
	e.Name = path.Base(rel)
	if li, err := l.fsroot.Lstat(rel); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		e.Symlink = true
	}
	return e, nil
}

// List implements executor.Executor.
func (l *Executor) List(ctx context.Context, p string) ([]executor.Entry, error) {
	rel, err := l.rel(p)
	if err != nil {
		return nil, l.pathErr("list", l.display(p), err)
	}
	f, err := l.fsroot.Open(rel)
	if err != nil {
		return nil, l.pathErr("list", rel, err)
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, l.pathErr("list", rel, err)
	}
	out := make([]executor.Entry, 0, len(des))
	for _, de := range des {
		e := executor.Entry{Name: de.Name(), Dir: de.IsDir(), Mode: de.Type()}
		if de.Type()&fs.ModeSymlink != 0 {
			e.Symlink = true
			// Follow links that stay inside the root; others stay plain names.
			if fi, err := l.fsroot.Stat(path.Join(rel, de.Name())); err == nil {
				e.Dir, e.Size, e.ModTime = fi.IsDir(), fi.Size(), fi.ModTime()
				e.Mode = fi.Mode() | fs.ModeSymlink
			}
		} else if fi, err := de.Info(); err == nil {
			e.Size, e.Mode, e.ModTime = fi.Size(), fi.Mode(), fi.ModTime()
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// WriteFile implements executor.Executor. The data goes to a temporary file in the
// same directory, which is synced and renamed over the target, so readers
// see the old or the new content and never a mix. Writing through a symlink
// replaces the file it points to (inside the root), not the link.
func (l *Executor) WriteFile(ctx context.Context, p string, data []byte) error {
	rel, err := l.rel(p)
	if err != nil {
		return l.pathErr("write", l.display(p), err)
	}
	if rel == "." {
		return l.pathErr("write", rel, syscall.EISDIR)
	}
	target := rel
	if li, err := l.fsroot.Lstat(rel); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		host, err := l.Resolve(rel)
		if err != nil {
			return l.pathErr("write", rel, err)
		}
		r, _ := filepath.Rel(l.root, host)
		target = filepath.ToSlash(r)
	}
	dir := path.Dir(target)
	if err := l.fsroot.MkdirAll(dir, 0o755); err != nil {
		return l.pathErr("write", rel, err)
	}
	// Everything below happens through one handle on the directory, so
	// that swapping it (or a parent) for a symlink cannot send the rename
	// or the clean-up somewhere else and leave the temporary file behind.
	d, err := l.fsroot.OpenRoot(dir)
	if err != nil {
		return l.pathErr("write", rel, err)
	}
	defer d.Close()
	base := path.Base(target)
	mode := fs.FileMode(0o644)
	if fi, err := d.Stat(base); err == nil {
		if fi.IsDir() {
			return l.pathErr("write", rel, syscall.EISDIR)
		}
		mode = fi.Mode().Perm()
	}
	tmp := "." + base + ".bonsai-" + randHex(4) + ".tmp"
	if err := l.writeTemp(d, tmp, data, mode); err != nil {
		_ = d.Remove(tmp)
		return l.pathErr("write", rel, err)
	}
	if err := d.Rename(tmp, base); err != nil {
		_ = d.Remove(tmp)
		return l.pathErr("write", rel, err)
	}
	return nil
}

func (l *Executor) writeTemp(d *os.Root, tmp string, data []byte, mode fs.FileMode) error {
	f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(mode) // the umask may have narrowed it
	}
	if werr == nil && l.durable {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

func entryOf(fi fs.FileInfo) executor.Entry {
	return executor.Entry{Name: fi.Name(), Dir: fi.IsDir(), Size: fi.Size(), Mode: fi.Mode(), ModTime: fi.ModTime()}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// findShell prefers bash and falls back to sh.
func findShell() []string {
	if p, err := exec.LookPath("bash"); err == nil {
		return []string{p, "-c"}
	}
	return []string{"sh", "-c"}
}
