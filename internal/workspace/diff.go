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

// safeRead are the settings of git commands that read what the agent
// wrote: the clone's config is shared with its worktrees, so the agent can
// set hooks, an fsmonitor command, an external diff or a textconv filter
// (with core.attributesFile) there, and git would run them for whoever
// asks. The flags of Diff turn off the last two.
var safeRead = []string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false"}

// Diff returns the unified diff of ticket t's branch against the project's
// default branch (origin's, else the local one), read in the project's
// clone; "" when there is no clone or no branch yet. It fits the web UI's
// diff function. git runs through the executor, with its clean environment,
// and with no external diff, textconv filter, fsmonitor or hook, any of
// which the agent could have configured; the output is cut at 4 MiB.
func (p *Provider) Diff(ctx context.Context, proj board.Project, t board.Ticket) (string, error) {
	if _, err := os.Stat(filepath.Join(p.ClonePath(proj.Slug), ".git")); err != nil {
		return "", nil // no beat has cloned the project yet
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	ctx, cancel := context.WithTimeout(ctx, diffTimeout)
	defer cancel()
	branch := t.Branch
	if branch == "" {
		branch = BranchName(proj.Slug, t.Number, t.Title)
	}
	if !g.refExists(ctx, proj.Slug, "refs/heads/"+branch) {
		return "", nil
	}
	base := Remote + "/" + proj.DefaultBranch
	if !g.refExists(ctx, proj.Slug, "refs/remotes/"+base) {
		base = proj.DefaultBranch
	}
	var out bytes.Buffer
	var stderr bytes.Buffer
	argv := append(append([]string{"git"}, safeRead...),
		"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", base+"..."+branch, "--")
	exit, err := g.ex.Exec(ctx, argv, executor.RunOptions{Dir: proj.Slug, Output: &limitWriter{w: &out, n: maxDiff},
		Stderr: &stderr, Env: []string{"GIT_OPTIONAL_LOCKS=0"}, Timeout: diffTimeout})
	switch {
	case err != nil:
		return "", p.hidePaths(fmt.Errorf("diff %s against %s: %w", branch, base, err))
	case exit.Code != 0 && out.Len() < maxDiff:
		return "", p.hidePaths(fmt.Errorf("diff %s against %s: %w", branch, base, &GitError{Args: []string{"diff"}, Code: exit.Code, Stderr: stderr.String()}))
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
