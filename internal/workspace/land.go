package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Identity is who a commit is by.
type Identity struct {
	Name  string
	Email string
}

func (id Identity) env() []string {
	return []string{"GIT_AUTHOR_NAME=" + id.Name, "GIT_AUTHOR_EMAIL=" + id.Email,
		"GIT_COMMITTER_NAME=" + id.Name, "GIT_COMMITTER_EMAIL=" + id.Email}
}

// LandRequest asks Land to put a ticket branch on the default branch.
type LandRequest struct {
	// Number is the ticket's number, used to name the scratch repository.
	Number int
	// Branch is the ticket branch in the project's clone.
	Branch string
	// Tip is the reviewed commit of Branch (Review's Tip, as the store
	// recorded it): exactly what lands. Required.
	Tip string
	// Style is how the branch is put on the default branch: squash (one
	// commit of its changes, req.Message), merge (a fast-forward when the
	// default branch has not moved since the branch started, else a merge
	// commit) or rebase (its commits replayed, authors kept).
	Style board.LandStyle
	// Message is the message of a squash or merge commit.
	Message string
	// Person is the author and committer of the commits landing makes
	// (the committer of rebased ones): the person who approved.
	Person Identity
}

// Landed is a branch put on the default branch.
type Landed struct {
	// Commit is what the default branch points at now.
	Commit string
	// FastForward reports whether the default branch moved to commits
	// the branch already had, with no new commit.
	FastForward bool
	// AlreadyThere reports whether the default branch already had the
	// branch's work: nothing was pushed.
	AlreadyThere bool
}

// ConflictError means the ticket branch and the default branch change
// the same lines: they cannot be put together without the agent.
type ConflictError struct {
	Branch, Base string
	// Files are the conflicting paths, relative to the repository.
	Files []string
}

// Error implements the error interface.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s conflicts with %s in %s", e.Branch, e.Base, strings.Join(e.Files, ", "))
}

// PushRejectedError is a push of the default branch the remote refused;
// nothing changed there. Reason is one of the Rejected* constants.
type PushRejectedError struct {
	Branch string
	Reason string
	Err    error
}

// Why a push of the default branch was refused.
const (
	// RejectedProtected: a hook or the forge protects the branch.
	RejectedProtected = "protected"
	// RejectedMoved: the branch moved on the remote since the fetch.
	RejectedMoved = "moved"
	// RejectedDirtyCheckout: the repository is a local one with the
	// branch checked out and changes in its working tree.
	RejectedDirtyCheckout = "dirty checkout"
	// RejectedOther: anything else the remote said.
	RejectedOther = "other"
)

// Error implements the error interface.
func (e *PushRejectedError) Error() string {
	return fmt.Sprintf("push %s refused (%s): %v", e.Branch, e.Reason, e.Err)
}

// Unwrap returns git's error.
func (e *PushRejectedError) Unwrap() error { return e.Err }

// landSettings are given to every git command of the scratch repository:
// its config is the runtime's own, but the user's global config still
// applies, and must not sign (which could prompt), run hooks or reuse
// recorded resolutions.
var landSettings = []string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false",
	"-c", "commit.gpgSign=false", "-c", "rerere.enabled=false", "-c", "rebase.autoSquash=false",
	"-c", "rebase.updateRefs=false", "-c", "merge.ff=true", "-c", "advice.detachedHead=false"}

// Land puts the reviewed commit req.Tip of ticket branch req.Branch on the
// default branch, freshly fetched from the project's repository, as
// req.Style says, as req.Person, then pushes the default branch to the
// project's repository without force: a default branch that moved in the
// meantime is refused, never replaced. A local repository with the
// default branch checked out gets its working tree updated with it, and
// the push is refused when that tree has changes (RejectedDirtyCheckout).
//
// The branch is read again first, from the clone (on a shared board also
// as pushed, and the pushed one counts unless the clone's holds it): when
// it moved away from req.Tip since the review, nothing lands and the
// error is a *MovedError.
//
// The commits are made in a scratch repository under the projects
// directory that borrows the objects of the project's review repository
// (see Review), not the clone's, whose config, refs and alternates the
// agent's worktrees share: no hook, filter, merge driver or other program
// the agent configured runs on the host, and no object it swapped in is
// read. A conflict is a *ConflictError, a refused push a
// *PushRejectedError, a failed fetch a *RepoError; nothing changed in any
// of these cases.
func (p *Provider) Land(ctx context.Context, proj board.Project, req LandRequest) (Landed, error) {
	l, err := p.land(ctx, proj, req)
	return l, p.hidePaths(err)
}

func (p *Provider) land(ctx context.Context, proj board.Project, req LandRequest) (Landed, error) {
	if req.Tip == "" {
		return Landed{}, fmt.Errorf("%s was not recorded for review, so there is no reviewed commit to land", req.Branch)
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return Landed{}, err
	}
	defer done()
	r, err := p.openReview(ctx, g, proj)
	if err != nil {
		return Landed{}, err
	}
	base, err := r.fetchDefault(ctx)
	if err != nil {
		return Landed{}, err
	}
	// The branch now, in the clone (or as pushed, on a shared board):
	// a commit nobody reviewed must not land.
	now, err := r.tip(ctx, req.Branch)
	if err != nil {
		return Landed{}, err
	}
	if now != "" && now != req.Tip && !(p.opts.SharedBoard && r.isAncestor(ctx, now, req.Tip)) {
		return Landed{}, &MovedError{Branch: req.Branch, Reviewed: req.Tip, Now: now}
	}
	head := r.commit(ctx, req.Tip)
	if head != req.Tip {
		return Landed{}, fmt.Errorf("the reviewed commit %.12s of %s is not on this machine; land it where it was reviewed", req.Tip, req.Branch)
	}
	if r.isAncestor(ctx, head, base) {
		return Landed{Commit: base, AlreadyThere: true}, nil
	}
	s, err := p.scratch(ctx, g, r.abs, proj.Slug, req.Number)
	if err != nil {
		return Landed{}, err
	}
	defer s.remove()
	s.env = append(req.Person.env(), "GIT_NO_REPLACE_OBJECTS=1")
	out, ff, err := s.put(ctx, req, base, head, proj.DefaultBranch)
	if err != nil {
		return Landed{}, err
	}
	if out == base {
		return Landed{Commit: base, AlreadyThere: true}, nil
	}
	if err := s.push(ctx, proj, out); err != nil {
		return Landed{}, err
	}
	if err := p.tell(ctx, g, s, proj, out); err != nil {
		return Landed{Commit: out, FastForward: ff}, fmt.Errorf("landed %s, but the clone could not record it: %w", out, err)
	}
	return Landed{Commit: out, FastForward: ff}, nil
}

// tell records the landed commit in the project's clone now rather than
// at the next fetch, so that the next ticket starts from it even without
// network.
func (p *Provider) tell(ctx context.Context, g *gitRunner, s *scratchRepo, proj board.Project, out string) error {
	if fi, err := os.Lstat(filepath.Join(p.ClonePath(proj.Slug), ".git")); err != nil || !fi.IsDir() {
		return nil // no clone on this machine
	}
	if _, err := s.git(ctx, "update-ref", "refs/heads/landed", out); err != nil {
		return err
	}
	url, _ := remoteURL(proj.Repo, g.remoteEnv)
	c, err := g.openClone(ctx, proj.Slug, url)
	if err != nil {
		return err
	}
	baseRef := "refs/remotes/" + Remote + "/" + proj.DefaultBranch
	_, err = c.run(ctx, "fetch", "--quiet", "--no-write-fetch-head",
		"--no-recurse-submodules", "--no-auto-maintenance", "--", s.abs, "+refs/heads/landed:"+baseRef)
	return err
}

// isAncestor reports whether commit a is an ancestor of (or is) b.
func (g *gitRunner) isAncestor(ctx context.Context, dir, a, b string) bool {
	_, err := g.run(ctx, dir, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// scratchRepo is a repository of the runtime's own that borrows the
// review repository's objects (objects/info/alternates) to make the
// landing commits in.
type scratchRepo struct {
	g   *gitRunner
	dir string // relative to the projects directory
	abs string
	env []string
}

// scratch makes an empty scratch repository for ticket n of the project,
// borrowing the objects of the review repository at review.
func (p *Provider) scratch(ctx context.Context, g *gitRunner, review, slug string, n int) (*scratchRepo, error) {
	parent := filepath.Join(p.opts.Projects, ".landing")
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, fmt.Errorf("landing: %w", err)
	}
	removeStale(parent)
	abs, err := os.MkdirTemp(parent, fmt.Sprintf("%s-%d-", slug, n))
	if err != nil {
		return nil, fmt.Errorf("landing: %w", err)
	}
	s := &scratchRepo{g: g, dir: filepath.Join(".landing", filepath.Base(abs)), abs: abs}
	if _, err := g.run(ctx, s.dir, "init", "--quiet", "--template=", "."); err != nil {
		s.remove()
		return nil, fmt.Errorf("landing: %w", err)
	}
	objects, err := filepath.Abs(filepath.Join(review, "objects"))
	if err == nil {
		err = os.MkdirAll(filepath.Join(abs, ".git", "objects", "info"), 0o700)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(abs, ".git", "objects", "info", "alternates"), []byte(objects+"\n"), 0o600)
	}
	if err != nil {
		s.remove()
		return nil, fmt.Errorf("landing: %w", err)
	}
	return s, nil
}

func (s *scratchRepo) remove() { os.RemoveAll(s.abs) }

// staleScratch is the age after which a scratch repository is taken for
// one a crashed process left: a landing takes seconds.
const staleScratch = time.Hour

// removeStale removes the scratch repositories in parent older than
// staleScratch.
func removeStale(parent string) {
	des, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, de := range des {
		if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > staleScratch {
			os.RemoveAll(filepath.Join(parent, de.Name()))
		}
	}
}

// git runs a local git command in the scratch repository as s.env's
// identity.
func (s *scratchRepo) git(ctx context.Context, args ...string) (string, error) {
	return s.g.withEnv(s.env).do(ctx, s.dir, false, append(append([]string{}, landSettings...), args...)...)
}

// put makes the commit the default branch moves to, from base (the default
// branch) and head (the ticket branch), and reports whether it is a
// fast-forward to head.
func (s *scratchRepo) put(ctx context.Context, req LandRequest, base, head, defaultBranch string) (string, bool, error) {
	conflict := func(err error, abort ...string) error {
		files, ferr := s.git(ctx, "diff", "--name-only", "--diff-filter=U")
		if ferr != nil || files == "" {
			return err
		}
		s.git(ctx, abort...)
		return &ConflictError{Branch: req.Branch, Base: defaultBranch, Files: strings.Split(files, "\n")}
	}
	ff := s.g.isAncestor(ctx, s.dir, base, head)
	switch req.Style {
	case board.LandMergeCommit, board.LandRebase:
		if ff {
			return head, true, nil
		}
	}
	start := base
	if req.Style == board.LandRebase {
		start = head
	}
	if _, err := s.git(ctx, "checkout", "--quiet", "--detach", start); err != nil {
		return "", false, fmt.Errorf("landing: %w", err)
	}
	switch req.Style {
	case board.LandSquash:
		if _, err := s.git(ctx, "merge", "--quiet", "--squash", head); err != nil {
			return "", false, conflict(err, "reset", "--quiet", "--hard")
		}
		if st, _ := s.git(ctx, "status", "--porcelain"); st == "" {
			return base, false, nil // the branch's changes are all in base
		}
		if _, err := s.git(ctx, "commit", "--quiet", "--no-verify", "--cleanup=strip", "-m", req.Message); err != nil {
			return "", false, fmt.Errorf("landing: %w", err)
		}
	case board.LandMergeCommit:
		if _, err := s.git(ctx, "merge", "--quiet", "--no-ff", "--no-edit", "-m", req.Message, head); err != nil {
			return "", false, conflict(err, "merge", "--abort")
		}
	case board.LandRebase:
		if _, err := s.git(ctx, "rebase", "--quiet", "--no-autostash", base); err != nil {
			return "", false, conflict(err, "rebase", "--abort")
		}
	default:
		return "", false, fmt.Errorf("landing: unknown merge style %q; use squash, merge or rebase", req.Style)
	}
	out, err := s.git(ctx, "rev-parse", "HEAD")
	if err != nil {
		return "", false, fmt.Errorf("landing: %w", err)
	}
	return out, false, nil
}

// push pushes commit to the project's default branch, without force.
func (s *scratchRepo) push(ctx context.Context, proj board.Project, commit string) error {
	url, env := remoteURL(proj.Repo, s.g.remoteEnv)
	args := []string{"push", "--quiet", "--no-signed", "--no-follow-tags", "--recurse-submodules=no"}
	if board.IsLocalRepo(proj.Repo) {
		// A person's own repository usually has the default branch checked
		// out, which a plain push refuses to update; updateInstead updates
		// its working tree too, and refuses when that tree has changes.
		args = append(args, "--receive-pack=git -c receive.denyCurrentBranch=updateInstead receive-pack")
	}
	ref := "refs/heads/" + proj.DefaultBranch
	_, err := s.g.withRemoteEnv(env).do(ctx, s.dir, true, append(args, "--", url, commit+":"+ref)...)
	if err == nil {
		return nil
	}
	var ge *GitError
	if !errors.As(err, &ge) {
		return err
	}
	return &PushRejectedError{Branch: proj.DefaultBranch, Reason: pushReason(ge.Stderr), Err: err}
}

// pushReason reads why git's push failed from its error output.
func pushReason(stderr string) string {
	s := strings.ToLower(stderr)
	switch {
	case strings.Contains(s, "protected branch"), strings.Contains(s, "gh006"), strings.Contains(s, "protected ref"):
		return RejectedProtected
	case strings.Contains(s, "fetch first"), strings.Contains(s, "non-fast-forward"):
		return RejectedMoved
	case strings.Contains(s, "working directory has unstaged changes"), strings.Contains(s, "working directory has staged changes"),
		strings.Contains(s, "would be overwritten"), strings.Contains(s, "updateinstead"):
		return RejectedDirtyCheckout
	}
	return RejectedOther
}
