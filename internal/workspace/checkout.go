package workspace

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// checkoutPrefix names the project's checkouts under worktrees/<slug>/;
// ticket worktrees are numbers, so it never meets one.
const checkoutPrefix = "schedule-"

// Checkout returns a fresh checkout of the project's default branch as
// fetched now from the project's repository, with the project's agent
// executor (its sandbox setting): where a schedule's pre-check runs. It
// holds the branch's files (git archive of the runtime's own review
// repository, extracted without following a link) and no git directory:
// the host runs no git in it, before or after the pre-check, and Close
// deletes it with everything the pre-check left there.
func (p *Provider) Checkout(ctx context.Context, proj board.Project) (*Workspace, error) {
	ws, err := p.checkout(ctx, proj)
	return ws, p.hidePaths(err)
}

func (p *Provider) checkout(ctx context.Context, proj board.Project) (*Workspace, error) {
	if err := os.MkdirAll(p.opts.Projects, 0o700); err != nil {
		return nil, fmt.Errorf("checkout: %w", err)
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	r, err := p.openReview(ctx, g, proj)
	if err != nil {
		return nil, err
	}
	base, err := r.fetchDefault(ctx)
	if err != nil {
		return nil, err
	}
	parent := filepath.Join(p.opts.Worktrees, proj.Slug)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, fmt.Errorf("checkout of %s: %w", proj.Slug, err)
	}
	removeCheckouts(parent)
	root, err := os.MkdirTemp(parent, checkoutPrefix)
	if err != nil {
		return nil, fmt.Errorf("checkout of %s: %w", proj.Slug, err)
	}
	if err := r.extract(ctx, base, root); err != nil {
		removeTree(root)
		return nil, fmt.Errorf("checkout of %s: %w", proj.Slug, err)
	}
	ws := &Workspace{Root: root, Base: base, remove: root}
	if ws.Exec, err = p.opts.OpenAgent(proj, root, ""); err != nil {
		removeTree(root)
		return nil, fmt.Errorf("open the checkout of %s: %w", proj.Slug, err)
	}
	return ws, nil
}

// extract writes the tree of commit into dir, through an os.Root so that
// no entry, a committed symbolic link included, writes outside it.
func (r *reviewRepo) extract(ctx context.Context, commit, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := untar(root, pr)
		pr.CloseWithError(err)
		errc <- err
	}()
	var stderr strings.Builder
	argv := append(append([]string{"git"}, reviewSettings...), "archive", "--format=tar", commit)
	exit, err := r.g.ex.Exec(ctx, argv, executor.RunOptions{Dir: r.dir, Output: pw, Stderr: &stderr,
		Env: r.g.localEnv, Timeout: localTimeout})
	pw.Close()
	uerr := <-errc
	switch {
	case err != nil:
		return fmt.Errorf("git archive: %w", err)
	case exit.Code != 0:
		return &GitError{Args: []string{"archive"}, Code: exit.Code, Stderr: stderr.String()}
	case uerr != nil:
		return fmt.Errorf("extract the default branch: %w", uerr)
	}
	return nil
}

// untar extracts a tar stream of git archive (directories, files,
// symbolic links) beneath root.
func untar(root *os.Root, in io.Reader) error {
	tr := tar.NewReader(in)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if name == "." || !fs.ValidPath(name) {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = root.MkdirAll(name, 0o755)
		case tar.TypeSymlink:
			err = root.Symlink(h.Linkname, name)
		case tar.TypeReg:
			err = writeEntry(root, name, h.FileInfo().Mode().Perm()|0o600, tr)
		}
		if err != nil {
			return err
		}
	}
}

func writeEntry(root *os.Root, name string, mode fs.FileMode, r io.Reader) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// removeCheckouts removes the checkouts in parent that a crashed process
// left behind, and the linked worktree older versions kept there.
func removeCheckouts(parent string) {
	des, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, de := range des {
		if strings.HasPrefix(de.Name(), checkoutPrefix) || de.Name() == "schedule" {
			removeTree(filepath.Join(parent, de.Name()))
		}
	}
}

// removeTree deletes dir, which a sandboxed command may have written:
// directories it made unreadable are made readable first. It follows no
// link: WalkDir reports a link as one, and chmod is only given real
// directories, with the sandbox's processes gone.
func removeTree(dir string) {
	// Each pass opens the directories the last one could not list.
	for range 16 {
		if os.RemoveAll(dir) == nil {
			return
		}
		os.Chmod(dir, 0o700)
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				os.Chmod(p, 0o700)
			}
			return nil
		})
	}
}
