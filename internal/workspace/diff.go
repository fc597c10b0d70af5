package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// maxDiff is the most diff output Diff returns.
const maxDiff = 4 << 20

// diffTimeout bounds one Diff.
const diffTimeout = 20 * time.Second

// Diff returns the unified diff of ticket t's branch that the Changes page
// shows, read in the project's review repository (see Review). With a
// recorded review (rv.Tip set) it is the diff of rv.Base...rv.Tip: what
// approval lands. Without one (the ticket is still being worked) it is
// the branch as it is in the clone now, fetched into the review
// repository, against the default branch as the runtime last fetched it
// from the project's repository. It returns "" when there is no clone or
// no branch yet. git runs through the executor, with its clean
// environment, and with no external diff, textconv filter, fsmonitor,
// hook or replace ref; the output is cut at 4 MiB.
func (p *Provider) Diff(ctx context.Context, proj board.Project, t board.Ticket, rv Review) (string, error) {
	out, err := p.diff(ctx, proj, t, rv)
	return out, p.hidePaths(err)
}

func (p *Provider) diff(ctx context.Context, proj board.Project, t board.Ticket, rv Review) (string, error) {
	if rv.Tip == "" {
		if fi, err := os.Lstat(filepath.Join(p.ClonePath(proj.Slug), ".git")); err != nil || !fi.IsDir() {
			return "", nil // no beat has cloned the project yet
		}
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, diffTimeout)
	defer cancel()
	r, err := p.openReview(ctx, g, proj)
	if err != nil {
		return "", err
	}
	branch := t.Branch
	if branch == "" {
		branch = BranchName(proj.Slug, t.Number, t.Title)
	}
	base, tip := rv.Base, rv.Tip
	if tip == "" {
		// The default branch first: the clone then sends only the
		// branch's own objects, each one checked.
		if base = r.commit(ctx, reviewDefault); base == "" {
			if base, err = r.fetchDefault(ctx); err != nil {
				return "", err
			}
		}
		if tip, err = r.fetchClone(ctx, branch); err != nil || tip == "" {
			return "", err
		}
	} else if r.commit(ctx, base) != base || r.commit(ctx, tip) != tip {
		return "", fmt.Errorf("the reviewed commits of %s (%.12s on %.12s) are not on this machine; the Changes page of the machine that recorded them shows them", branch, tip, base)
	}
	var out, stderr bytes.Buffer
	argv := append(append([]string{"git"}, reviewSettings...),
		"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", base+"..."+tip, "--")
	exit, err := g.ex.Exec(ctx, argv, executor.RunOptions{Dir: r.dir, Output: &limitWriter{w: &out, n: maxDiff},
		Stderr: &stderr, Env: append([]string{"GIT_OPTIONAL_LOCKS=0"}, reviewEnv...), Timeout: diffTimeout})
	switch {
	case err != nil:
		return "", fmt.Errorf("diff %s against %s: %w", branch, proj.DefaultBranch, err)
	case exit.Code != 0 && out.Len() < maxDiff:
		return "", fmt.Errorf("diff %s against %s: %w", branch, proj.DefaultBranch, &GitError{Args: []string{"diff"}, Code: exit.Code, Stderr: stderr.String()})
	}
	return out.String(), nil
}

// limitWriter keeps the first n bytes written and drops the rest.
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(b []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}
