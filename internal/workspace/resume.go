package workspace

import (
	"context"
	"errors"
	"fmt"
)

// Refs under refs/bonsai/ in a clone are the runtime's own: no branch, not
// fetched, not pushed, kept by gc.
const (
	// syncedRefs + branch is, on a shared board, the commit the remote's
	// branch was at when this clone last caught up with it (Prepare) or
	// pushed it (Push); absent when the remote had no such branch.
	syncedRefs = "refs/bonsai/synced/"
	// movedRefs + branch + "/" + commit keeps local commits that another
	// machine's push left off the branch.
	movedRefs = "refs/bonsai/moved/"
	// leftoverRefs + branch + "/" + commit keeps, as a stash commit, the
	// uncommitted changes set aside when the worktree was moved.
	leftoverRefs = "refs/bonsai/leftovers/"
)

// shortSHA is how much of a commit names a backup ref.
const shortSHA = 12

// Moved says how Prepare moved a ticket's worktree, on a shared board, to
// the branch another machine pushed since this one last worked the ticket.
// The refs it names are in the project's clone on this machine only.
type Moved struct {
	// From is the commit the local branch was at, To the pushed one it is
	// at now.
	From, To string
	// Backup is the ref that keeps the local commits the pushed branch
	// does not have (the two diverged: `git log <Backup>` shows them);
	// empty when the local branch was behind the pushed one.
	Backup string
	// Leftovers is the ref that keeps the uncommitted changes, untracked
	// files included, that an earlier run on this machine left in the
	// worktree, as a stash commit (`git stash apply <Leftovers>` brings
	// them back); empty when the worktree was clean.
	Leftovers string
}

// Lost reports whether anything was set aside rather than carried over:
// the people and the agent working the ticket should hear of it.
func (m *Moved) Lost() bool { return m != nil && (m.Backup != "" || m.Leftovers != "") }

// branchTips are the commits of a ticket branch as one Prepare sees them;
// "" is a ref that does not exist.
type branchTips struct {
	local, remote, synced string
}

// tip returns the commit ref names, or "" when there is none.
func (c *cloneGit) tip(ctx context.Context, ref string) (string, error) {
	out, err := c.run(ctx, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	var ge *GitError
	if errors.As(err, &ge) && ge.Code == 1 {
		return "", nil
	}
	return out, err
}

// setRef points ref at commit ("" deletes it) on the host, only if it
// still is at old when old is given. Hooks are off (cloneSettings): git
// runs reference-transaction hooks on ref updates.
func (c *cloneGit) setRef(ctx context.Context, ref, commit string, old ...string) error {
	args := []string{"update-ref"}
	if commit == "" {
		args = append(args, "-d", ref)
	} else {
		args = append(args, ref, commit)
	}
	_, err := c.run(ctx, append(args, old...)...)
	return err
}

// catchUpPlan decides, after the fetch, whether the ticket branch must
// move to the one pushed to the remote, and returns how, or nil to keep
// the local branch. The local branch is kept when the remote has no such
// branch, when the remote did not move since this clone last caught up
// with it or pushed it (whatever the local branch holds is this
// machine's own line of work: commits whose push failed, a rebase), and
// when the local branch already holds the pushed commit. Otherwise
// another machine (or a person) pushed since: the local branch moves to
// the pushed one, and local commits it lacks (the two diverged) are kept
// under a backup ref.
func (c *cloneGit) catchUpPlan(ctx context.Context, branch string, b branchTips) *Moved {
	switch {
	case b.remote == "", b.local == "", b.local == b.remote, b.synced == b.remote:
		return nil
	case c.isAncestor(ctx, b.remote, b.local):
		return nil
	}
	m := &Moved{From: b.local, To: b.remote}
	if !c.isAncestor(ctx, b.local, b.remote) {
		m.Backup = movedRefs + branch + "/" + short(b.local)
	}
	return m
}

// moveBranch moves the ticket branch of a clone that has no worktree for
// it, keeping the local commits under m.Backup first.
func (c *cloneGit) moveBranch(ctx context.Context, branch string, m *Moved) error {
	if m.Backup != "" {
		if err := c.setRef(ctx, m.Backup, m.From); err != nil {
			return fmt.Errorf("keep the local commits of %s: %w", branch, err)
		}
	}
	if err := c.setRef(ctx, "refs/heads/"+branch, m.To, m.From); err != nil {
		return fmt.Errorf("move %s to the pushed branch: %w", branch, err)
	}
	return nil
}

// catchUp is what Prepare does on a shared board around making or reusing
// the ticket's worktree.
type catchUp struct {
	tips  branchTips
	moved *Moved
}

// planCatchUp decides from the ticket branch's commits (Prepare's read)
// whether it moves to the pushed one; a branch with no worktree (reused
// false) moves now, before the worktree is made from it.
func (c *cloneGit) planCatchUp(ctx context.Context, branch string, tips branchTips, reused bool) (*catchUp, error) {
	cu := &catchUp{tips: tips, moved: c.catchUpPlan(ctx, branch, tips)}
	if cu.moved != nil && !reused {
		if err := c.moveBranch(ctx, branch, cu.moved); err != nil {
			return nil, err
		}
	}
	return cu, nil
}

// finish moves a reused worktree to the pushed branch when planned, and
// records what this clone now holds of the remote's branch: the lease of
// the next push, and what the next Prepare compares with.
func (c *catchUp) finish(ctx context.Context, g *cloneGit, ws *Workspace, reused bool) error {
	if c.moved != nil && reused {
		if err := moveWorktree(ctx, ws, c.moved); err != nil {
			return fmt.Errorf("move the worktree to the pushed %s: %w (removing the worktree %s starts it again from the pushed branch, its uncommitted changes lost)", ws.Branch, err, ws.Root)
		}
	}
	if c.tips.synced != c.tips.remote {
		if err := g.setRef(ctx, syncedRefs+ws.Branch, c.tips.remote); err != nil {
			return fmt.Errorf("record the pushed %s: %w", ws.Branch, err)
		}
	}
	ws.Moved = c.moved
	return nil
}

// moveWorktree moves the ticket's existing worktree to m.To: uncommitted
// changes are set aside first as a stash commit under a leftovers ref, the
// local commits under m.Backup. Everything that reads or writes the
// worktree's files runs through its own executor (the sandbox when the
// project has one), so no filter or fsmonitor the agent configured runs on
// the host.
func moveWorktree(ctx context.Context, ws *Workspace, m *Moved) error {
	g := worktreeGit{ex: ws.Exec}
	dirty, err := g.run(ctx, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return fmt.Errorf("read the worktree's changes: %w", err)
	}
	if dirty != "" {
		// Staging everything first takes unmerged paths (a merge or
		// rebase the run left halfway) into the stash, markers and all,
		// where a stash of unmerged paths would fail.
		if _, err := g.run(ctx, "add", "--all"); err != nil {
			return fmt.Errorf("set aside the uncommitted changes: %w", err)
		}
		before, _ := g.run(ctx, "rev-parse", "--verify", "--quiet", "refs/stash")
		if _, err := g.run(ctx, "stash", "push", "--include-untracked", "--quiet",
			"-m", "bonsai: uncommitted changes set aside when "+ws.Branch+" moved to "+short(m.To)); err != nil {
			return fmt.Errorf("set aside the uncommitted changes: %w", err)
		}
		stash, err := g.run(ctx, "rev-parse", "--verify", "refs/stash")
		if err != nil || stash == before {
			return fmt.Errorf("set aside the uncommitted changes: no stash was made (%v)", err)
		}
		ref := leftoverRefs + ws.Branch + "/" + short(stash)
		if _, err := g.run(ctx, "update-ref", ref, stash); err != nil {
			return fmt.Errorf("keep the uncommitted changes: %w", err)
		}
		// The stash list is the clone's, shared by every worktree: the
		// changes live on under their own ref only.
		if _, err := g.run(ctx, "stash", "drop", "--quiet"); err != nil {
			return fmt.Errorf("keep the uncommitted changes: %w", err)
		}
		m.Leftovers = ref
	}
	// A merge, rebase, cherry-pick or revert the run left halfway is
	// stale too: forget it, leaving HEAD and the files alone (its
	// changes are in the stash).
	for _, op := range []string{"merge", "rebase", "cherry-pick", "revert"} {
		g.run(ctx, op, "--quit")
	}
	if m.Backup != "" {
		if _, err := g.run(ctx, "update-ref", m.Backup, m.From); err != nil {
			return fmt.Errorf("keep the local commits: %w", err)
		}
	}
	if _, err := g.run(ctx, "checkout", "--quiet", "--no-track", "-B", ws.Branch, m.To); err != nil {
		return fmt.Errorf("check out the pushed branch: %w", err)
	}
	return nil
}

// short abbreviates a commit for a ref name or a message.
func short(commit string) string { return commit[:min(shortSHA, len(commit))] }
