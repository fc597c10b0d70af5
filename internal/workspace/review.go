package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// The review repository of a project (projects/.review/<slug>.git) is a
// bare repository of the runtime's own, outside every path the sandbox
// binds: the agent can write the clone's refs, objects and alternates
// (its worktrees share the clone's .git), but not this one. What a person
// reviews and what lands are read here, from commits the runtime fetched
// itself: the ticket branch from the clone (git copies the objects and
// checks each one's hash) and the default branch from the project's
// repository, never from the clone's remote-tracking refs.

// reviewDir is the review repositories' directory under the projects
// directory.
const reviewDir = ".review"

// Refs of the review repository.
const (
	// reviewDefault is the default branch as last fetched from the
	// project's repository.
	reviewDefault = "refs/bonsai/default"
	// reviewFetched holds ticket branches as last fetched, by name.
	reviewFetched = "refs/bonsai/fetched/"
	// reviewSeen + branch is the commit the ticket branch was at on the
	// project's repository when its ticket's worktree was last prepared,
	// or when the runtime last pushed it: the lease of the next push.
	// Absent when the repository had no such branch.
	reviewSeen = "refs/bonsai/seen/"
	// reviewKept + <ticket number> + "/" + commit keeps a ticket's
	// reviewed commits from garbage collection until the ticket is done
	// or deleted (ForgetReview).
	reviewKept = "refs/bonsai/reviewed/"
)

// reviewSettings are given to every git command of the review repository:
// its config is the runtime's own, but the user's global config still
// applies, and must not run hooks or a program of another protocol.
var reviewSettings = []string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false",
	"-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never", "-c", "gc.auto=0", "-c", "maintenance.auto=false"}

// reviewEnv makes git read no replace refs (refs/replace, which would
// swap one object for another) and use the review repository as it is
// named, with no discovery.
var reviewEnv = []string{"GIT_NO_REPLACE_OBJECTS=1", "GIT_DIR=."}

// Review is a ticket branch as recorded for review: the commits the
// Changes page shows and approval lands.
type Review struct {
	// Base is the default branch's commit, fetched from the project's
	// repository, that the branch is compared with.
	Base string
	// Tip is the reviewed commit of the ticket branch.
	Tip string
	// Commits counts the commits of Tip that Base lacks: zero means the
	// branch has nothing to review.
	Commits int
}

// MovedError means the ticket branch moved after it was reviewed:
// landing it would land commits nobody reviewed. Nothing was landed.
type MovedError struct {
	Branch string
	// Reviewed is the recorded tip, Now the branch's tip now.
	Reviewed, Now string
}

// Error implements the error interface.
func (e *MovedError) Error() string {
	return fmt.Sprintf("the branch %s moved after it was reviewed (reviewed %.12s, now %.12s)", e.Branch, e.Reviewed, e.Now)
}

// TamperedError means the clone's git directory holds what the runtime
// never writes there and the agent can (alternates, a commondir, links):
// the host ran no git in it.
type TamperedError struct {
	Slug string
	What string
}

// Error implements the error interface.
func (e *TamperedError) Error() string {
	return fmt.Sprintf("refused to run git in projects/%s: its git directory has %s, which Bonsai never writes and the agent's commands can; "+
		"remove it (or delete the clone, which the next beat makes again)", e.Slug, e.What)
}

// reviewRepo is a project's review repository.
type reviewRepo struct {
	p    *Provider
	g    *gitRunner // runs in the review repository, with reviewEnv
	host *gitRunner // runs in the projects directory (the clone's checks)
	dir  string     // relative to the projects directory
	abs  string
	proj board.Project
	// checked is set by a caller that checked the clone's config
	// (openClone) right before reading from it, so fromClone does not
	// list it a second time; the layout is checked again anyway.
	checked bool
	// made says openReview made the repository: it has no refs yet.
	made bool
}

// openReview makes the project's review repository when it is not there
// (shared 0600: its files are the runtime's alone, like the rest of the
// data directory) and returns it.
func (p *Provider) openReview(ctx context.Context, g *gitRunner, proj board.Project) (*reviewRepo, error) {
	dir := filepath.Join(reviewDir, proj.Slug+".git")
	abs := filepath.Join(p.opts.Projects, dir)
	r := &reviewRepo{p: p, dir: dir, abs: abs, proj: proj, host: g}
	c := *g
	c.localEnv = append(append([]string{}, g.localEnv...), reviewEnv...)
	c.remoteEnv = append(append([]string{}, g.remoteEnv...), reviewEnv...)
	r.g = &c
	if p.hasReview(proj.Slug) {
		return r, nil
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("review repository: %w", err)
	}
	if _, err := r.git(ctx, "init", "--quiet", "--bare", "--shared=0600", "--template=", "."); err != nil {
		return nil, fmt.Errorf("review repository: %w", err)
	}
	r.made = true
	return r, nil
}

// hasReview reports whether project slug has its review repository.
func (p *Provider) hasReview(slug string) bool {
	fi, err := os.Lstat(filepath.Join(p.opts.Projects, reviewDir, slug+".git", "HEAD"))
	return err == nil && fi.Mode().IsRegular()
}

// mayHave reports whether the review repository may hold ref (a full
// name): as a file of its own, or among packed refs (which only a
// person's `git gc` or `pack-refs` would write there). The repository is
// the runtime's own, outside the sandbox: its files are read as they are.
func (r *reviewRepo) mayHave(ref string) bool {
	for _, name := range []string{filepath.FromSlash(ref), "packed-refs"} {
		if _, err := os.Lstat(filepath.Join(r.abs, name)); err == nil {
			return true
		}
	}
	return false
}

// git runs a local git command in the review repository.
func (r *reviewRepo) git(ctx context.Context, args ...string) (string, error) {
	return r.g.do(ctx, r.dir, false, append(append([]string{}, reviewSettings...), args...)...)
}

// commit returns the commit ref names in the review repository, "" when
// there is none.
func (r *reviewRepo) commit(ctx context.Context, ref string) string {
	out, err := r.git(ctx, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return out
}

// fetchDefault fetches the project's default branch from its repository,
// with the runtime's credentials, and returns its commit.
func (r *reviewRepo) fetchDefault(ctx context.Context) (string, error) {
	if err := r.fetchDefaultRef(ctx); err != nil {
		return "", err
	}
	base := r.commit(ctx, reviewDefault)
	if base == "" {
		return "", r.noDefault()
	}
	return base, nil
}

// fetchDefaultRef is fetchDefault but for reading the commit fetched.
func (r *reviewRepo) fetchDefaultRef(ctx context.Context) error {
	proj := r.proj
	if err := checkRepo(proj.Repo); err != nil {
		return &RepoError{Repo: proj.Repo, Err: err}
	}
	url, env := remoteURL(proj.Repo, r.g.remoteEnv)
	_, err := r.g.withRemoteEnv(env).do(ctx, r.dir, true, append(append([]string{}, reviewSettings...),
		"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--no-auto-maintenance",
		"--", url, "+refs/heads/"+proj.DefaultBranch+":"+reviewDefault)...)
	if err != nil {
		return &RepoError{Repo: proj.Repo, Err: fmt.Errorf("fetch %s: %w", Redact(proj.Repo), err)}
	}
	return nil
}

// noDefault is the error of a default branch that has no commit.
func (r *reviewRepo) noDefault() error {
	return &RepoError{Repo: r.proj.Repo, Err: fmt.Errorf("default branch %q not found in %s", r.proj.DefaultBranch, Redact(r.proj.Repo))}
}

// fetchClone fetches the ticket branch from the project's clone and
// returns its commit, "" when the clone or the branch is not there. The
// clone's config, alternates and links are checked first; the objects are
// checked as they arrive.
func (r *reviewRepo) fetchClone(ctx context.Context, branch string) (string, error) {
	return r.fromClone(ctx, branch, "refs/heads/"+branch, reviewFetched+branch)
}

// fromClone fetches ref src of the clone (branch names it in errors) into
// ref dst and returns its commit, "" when the clone or src is not there.
func (r *reviewRepo) fromClone(ctx context.Context, branch, src, dst string) (string, error) {
	found, err := r.fetchFromClone(ctx, branch, src, dst)
	if err != nil || !found {
		return "", err
	}
	return r.commit(ctx, dst), nil
}

// fetchFromClone is fromClone but for reading the commit fetched: found
// is false when the clone or src is not there.
func (r *reviewRepo) fetchFromClone(ctx context.Context, branch, src, dst string) (found bool, err error) {
	clone, err := filepath.Abs(r.p.ClonePath(r.proj.Slug))
	if err != nil {
		return false, err
	}
	if fi, err := os.Lstat(filepath.Join(clone, ".git")); err != nil || !fi.IsDir() {
		return false, nil
	}
	if err := checkCloneLayout(r.proj.Slug, filepath.Join(clone, ".git")); err != nil {
		return false, err
	}
	if err := checkGitDir(r.proj.Slug, filepath.Join(clone, ".git")); err != nil {
		return false, err
	}
	if !r.checked {
		if _, err := r.host.checkConfig(ctx, r.proj.Slug, clone); err != nil {
			return false, fmt.Errorf("read %s from the clone: %w", branch, err)
		}
	}
	_, err = r.git(ctx, "-c", "fetch.fsckObjects=true", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
		"--no-recurse-submodules", "--no-auto-maintenance", "--upload-pack="+uploadPack(), "--", clone, "+"+src+":"+dst)
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "couldn't find remote ref") {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s from the clone: %w", branch, err)
	}
	return true, nil
}

// fetchPushed fetches the ticket branch as pushed to the project's
// repository and returns its commit, "" when it is not there.
func (r *reviewRepo) fetchPushed(ctx context.Context, branch string) (string, error) {
	url, env := remoteURL(r.proj.Repo, r.g.remoteEnv)
	dst := reviewFetched + "pushed/" + branch
	_, err := r.g.withRemoteEnv(env).do(ctx, r.dir, true, append(append([]string{}, reviewSettings...),
		"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--no-auto-maintenance",
		"--", url, "+refs/heads/"+branch+":"+dst)...)
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "couldn't find remote ref") {
		return "", nil
	}
	if err != nil {
		return "", &RepoError{Repo: r.proj.Repo, Err: fmt.Errorf("fetch %s: %w", branch, err)}
	}
	return r.commit(ctx, dst), nil
}

// tip returns the ticket branch's commit now: the clone's, else (a clone
// made again since) the pushed one; on a shared board, the pushed one
// unless the clone's holds it (another machine may have worked the ticket
// since).
func (r *reviewRepo) tip(ctx context.Context, branch string) (string, error) {
	tip, err := r.fetchClone(ctx, branch)
	if err != nil || (tip != "" && !r.p.opts.SharedBoard) {
		return tip, err
	}
	pushed, err := r.fetchPushed(ctx, branch)
	if err != nil {
		return "", err
	}
	if pushed != "" && (tip == "" || !r.isAncestor(ctx, pushed, tip)) {
		tip = pushed
	}
	return tip, nil
}

// ahead reads the ticket branch from the clone and the default branch
// from the project's repository, and returns the branch's commit when it
// has commits the default branch lacks ("" when it has none); a branch
// that is not in the clone is an error. After the two fetches, one
// for-each-ref of the fetched branch, by its full name, against the
// default branch (--no-merged) answers both: the review repository is the
// runtime's own, so no ref there looks like another.
func (r *reviewRepo) ahead(ctx context.Context, branch string) (string, error) {
	// The two fetches write different refs of the review repository and
	// run at once: one waits on the network, the other on the clone.
	var baseErr error
	fetched := make(chan struct{})
	go func() {
		defer close(fetched)
		baseErr = r.fetchDefaultRef(ctx)
	}()
	found, err := r.fetchFromClone(ctx, branch, "refs/heads/"+branch, reviewFetched+branch)
	<-fetched
	if baseErr != nil {
		return "", baseErr
	}
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("the branch %s is not in the project's clone", branch)
	}
	ref := reviewFetched + branch
	out, err := r.git(ctx, "for-each-ref", "--format=%(objecttype) %(objectname) %(refname)", "--no-merged="+reviewDefault+"^{commit}", ref)
	if err != nil {
		if r.commit(ctx, reviewDefault) == "" {
			return "", r.noDefault()
		}
		return "", fmt.Errorf("count the commits of %s: %w", branch, err)
	}
	for _, line := range strings.Split(out, "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		name, refname, _ := strings.Cut(rest, " ")
		switch {
		case refname != ref:
		case kind == "commit":
			return name, nil
		default: // a tag the agent pointed the branch at
			if tip := r.commit(ctx, ref); tip != "" {
				return tip, nil
			}
			return "", fmt.Errorf("the branch %s of the project's clone points at no commit", branch)
		}
	}
	return "", nil
}

// push pushes commit to ref of the project's repository, with the
// runtime's credentials, unless the remote's ref is no longer at lease
// ("" meaning it must not exist).
func (r *reviewRepo) push(ctx context.Context, commit, ref, lease string) error {
	url, env := remoteURL(r.proj.Repo, r.g.remoteEnv)
	_, err := r.g.withRemoteEnv(env).do(ctx, r.dir, true, append(append([]string{}, reviewSettings...),
		"push", "--quiet", "--no-signed", "--no-follow-tags", "--recurse-submodules=no",
		"--force-with-lease="+ref+":"+lease, "--", url, commit+":"+ref)...)
	return err
}

// isAncestor reports whether commit a is an ancestor of (or is) b.
func (r *reviewRepo) isAncestor(ctx context.Context, a, b string) bool {
	_, err := r.git(ctx, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// keep keeps commit, reviewed for ticket number n, from garbage
// collection.
func (r *reviewRepo) keep(ctx context.Context, n int, commit string) error {
	_, err := r.git(ctx, "update-ref", reviewKept+strconv.Itoa(n)+"/"+commit, commit)
	return err
}

// Review fetches ticket number's branch from the project's clone and the
// default branch from the project's repository into the project's review
// repository, keeps both (until ForgetReview), and returns them as the
// commits a person reviews: what the heartbeat records when the ticket
// reaches VERIFICATION. It reads
// nothing else of the clone: not its remote-tracking refs, replace refs,
// hooks or alternates (a clone with alternates or links in its git
// directory is refused with a *TamperedError). A branch that is in
// neither place is an error.
func (p *Provider) Review(ctx context.Context, proj board.Project, number int, branch string) (Review, error) {
	rv, err := p.review(ctx, proj, number, branch)
	return rv, p.hidePaths(err)
}

func (p *Provider) review(ctx context.Context, proj board.Project, number int, branch string) (Review, error) {
	g, done, err := p.runtime(ctx)
	if err != nil {
		return Review{}, err
	}
	defer done()
	r, err := p.openReview(ctx, g, proj)
	if err != nil {
		return Review{}, err
	}
	base, err := r.fetchDefault(ctx)
	if err != nil {
		return Review{}, err
	}
	tip, err := r.tip(ctx, branch)
	if err != nil {
		return Review{}, err
	}
	if tip == "" {
		return Review{}, fmt.Errorf("the ticket branch %s is neither in the project's clone nor in %s", branch, Redact(proj.Repo))
	}
	n, err := r.git(ctx, "rev-list", "--count", base+".."+tip)
	if err != nil {
		return Review{}, fmt.Errorf("count the commits of %s: %w", branch, err)
	}
	count, _ := strconv.Atoi(n)
	for _, c := range []string{base, tip} {
		if err := r.keep(ctx, number, c); err != nil {
			return Review{}, fmt.Errorf("keep the reviewed commits: %w", err)
		}
	}
	return Review{Base: base, Tip: tip, Commits: count}, nil
}

// checkGitDir refuses a clone git directory holding alternates (which
// choose the object directories git reads) or links anywhere under its
// objects and refs (which make git read files elsewhere on the host). The
// runtime writes neither; the sandbox can write both. It reads the
// directories without following a link.
func checkGitDir(slug, gitDir string) error {
	for _, alt := range []string{"alternates", "http-alternates"} {
		if _, err := os.Lstat(filepath.Join(gitDir, "objects", "info", alt)); err == nil {
			return &TamperedError{Slug: slug, What: "objects/info/" + alt}
		}
	}
	for _, sub := range []string{"objects", "refs"} {
		root := filepath.Join(gitDir, sub)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && !d.Type().IsRegular() {
				rel, _ := filepath.Rel(gitDir, path)
				return &TamperedError{Slug: slug, What: "a link or special file at " + filepath.ToSlash(rel)}
			}
			return nil
		})
		var te *TamperedError
		if errors.As(err, &te) {
			return te
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("check the git directory of projects/%s: %w", slug, err)
		}
	}
	return nil
}

// ForgetReview deletes what the review repository of project slug keeps
// for ticket number n, which is done or deleted: its reviewed commits and,
// when branch is given, the branch as last fetched. Other tickets' reviews
// are kept, even of the same commits. A project with no review repository
// has nothing to forget.
func (p *Provider) ForgetReview(ctx context.Context, slug string, n int, branch string) error {
	if !p.hasReview(slug) {
		return nil
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return err
	}
	defer done()
	r, err := p.openReview(ctx, g, board.Project{Slug: slug})
	if err != nil {
		return err
	}
	prefixes := []string{reviewKept + strconv.Itoa(n) + "/"}
	if branch != "" {
		prefixes = append(prefixes, reviewFetched+branch, reviewFetched+"pushed/"+branch, reviewSeen+branch)
	}
	out, err := r.git(ctx, append([]string{"for-each-ref", "--format=%(refname)"}, prefixes...)...)
	if err != nil || out == "" {
		return p.hidePaths(err)
	}
	for _, ref := range strings.Split(out, "\n") {
		if _, err := r.git(ctx, "update-ref", "-d", ref); err != nil {
			return p.hidePaths(fmt.Errorf("forget the review of %s#%d: %w", slug, n, err))
		}
	}
	return nil
}

// see records in the review repository, as the lease of the ticket
// branch's next push, the commit remote (the branch in the project's
// repository as Prepare's fetch just brought it into the clone, "" for
// none). The commit is fetched from the clone's remote-tracking ref and
// must still be remote: the agent's run has not started.
func (r *reviewRepo) see(ctx context.Context, branch, remote string) error {
	if remote == "" {
		if r.made || !r.mayHave(reviewSeen+branch) {
			return nil // no lease to forget
		}
		_, err := r.git(ctx, "update-ref", "-d", reviewSeen+branch)
		return err
	}
	got, err := r.fromClone(ctx, branch, "refs/remotes/"+Remote+"/"+branch, reviewSeen+branch)
	if err != nil {
		return err
	}
	if got != remote {
		r.git(ctx, "update-ref", "-d", reviewSeen+branch)
		return fmt.Errorf("record the pushed %s: the clone's %s/%s moved while it was read", branch, Remote, branch)
	}
	return nil
}
