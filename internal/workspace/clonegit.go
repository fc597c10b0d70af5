package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A project's clone (projects/<slug>) is shared with the agent's
// worktrees: inside the sandbox its objects (and so
// objects/info/alternates and the commit-graph), refs (replace and
// remote-tracking refs included), logs and each worktree's own metadata
// are writable, and with the sandbox off all of it is. Every git command
// the host runs in a clone goes through cloneGit, which is the one place
// that says how:
//
//   - openClone first checks the clone's layout (a real .git directory, a
//     real config file, no commondir, no alternates) and what git reads of
//     its config (checkConfig), failing closed;
//   - every command gets cloneSettings, which switch off what the
//     command line can switch off (hooks, the fsmonitor, replace refs,
//     the commit-graph and multi-pack index the agent could write,
//     automatic gc, submodule recursion, the ext:: and fd:: transports),
//     and cloneEnv (no replace objects, no grafts, no system attributes,
//     no lazy fetch);
//   - the host runs only commands that never run a filter, a diff or
//     merge driver or a textconv: for-each-ref, rev-parse, merge-base,
//     update-ref, config, remote set-url, fetch, and worktree add
//     --no-checkout, prune and remove --force. Refs are read by their
//     full names, matched whole (tips), and a new branch starts from
//     the commit read, not from a name git would look up again. A new
//     worktree's files are checked out through the worktree's own
//     executor (the sandbox), where whatever the agent configured runs
//     as the agent, and a new branch is made there by that checkout, at
//     the commit the host read (the worktree is added detached at it);
//     the ticket branch is
//     counted and pushed from the review repository (review.go), never
//     from the clone, with a lease recorded there.

// cloneSettings are given to every git command the host runs in a clone.
var cloneSettings = []string{
	"-c", "core.hooksPath=" + os.DevNull, // reference-transaction, post-checkout, pre-push …
	"-c", "core.fsmonitor=false",
	"-c", "core.useReplaceRefs=false",
	"-c", "core.commitGraph=false", // objects/info/commit-graph could lie about parents
	"-c", "core.multiPackIndex=false",
	"-c", "fetch.writeCommitGraph=false",
	"-c", "gc.auto=0", "-c", "maintenance.auto=false",
	"-c", "submodule.recurse=false", "-c", "fetch.recurseSubmodules=false",
	"-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never",
}

// cloneEnv is added to the environment of every git command the host
// runs in a clone. GIT_NO_LAZY_FETCH needs git 2.45; before it,
// extensions.partialClone is what checkConfig refuses.
var cloneEnv = []string{
	"GIT_NO_REPLACE_OBJECTS=1", "GIT_GRAFT_FILE=" + os.DevNull, "GIT_ATTR_NOSYSTEM=1", "GIT_NO_LAZY_FETCH=1",
}

// cloneGit runs the host's git commands in one checked clone.
type cloneGit struct {
	g    *gitRunner
	slug string
	conf clonedConfig // what openClone's check read
}

// openClone checks the clone projects/slug (see cloneGit) before the host
// runs git in it, url being the project's URL as git is given it, and
// returns the runner of those commands. A clone whose layout holds what
// the runtime never writes is a *TamperedError, one whose config git
// would obey in a way -c cannot undo an *UnsafeConfigError.
func (g *gitRunner) openClone(ctx context.Context, slug, url string) (*cloneGit, error) {
	if err := checkCloneLayout(slug, filepath.Join(g.projects, slug, ".git")); err != nil {
		return nil, err
	}
	conf, err := g.checkConfig(ctx, slug, url)
	if err != nil {
		return nil, err
	}
	return &cloneGit{g: g, slug: slug, conf: conf}, nil
}

// run runs a local git command in the clone.
func (c *cloneGit) run(ctx context.Context, args ...string) (string, error) {
	return c.g.withEnv(append(append([]string{}, c.g.localEnv...), cloneEnv...)).do(ctx, c.slug, false, append(append([]string{}, cloneSettings...), args...)...)
}

// remote runs a git command that talks to the project's repository (the
// clone's fetch), with the runtime's credentials and the network timeout.
func (c *cloneGit) remote(ctx context.Context, args ...string) (string, error) {
	return c.g.withRemoteEnv(append(append([]string{}, c.g.remoteEnv...), cloneEnv...)).do(ctx, c.slug, true, append(append([]string{}, cloneSettings...), args...)...)
}

// uploadPack is the command a fetch from the clone runs there (git's
// --upload-pack): git clears the fetching command's -c settings and
// GIT_NO_REPLACE_OBJECTS for it, so they are given again.
func uploadPack() string {
	cmd := "git"
	for i := 0; i+1 < len(cloneSettings); i += 2 {
		cmd += " -c " + shellQuote(cloneSettings[i+1])
	}
	return cmd + " upload-pack"
}

// checkCloneLayout refuses a clone whose git directory is not a directory,
// whose config is not a regular file, or which has a commondir (git would
// read another directory's config and refs) or alternates (git would read
// objects from directories the agent chose). The runtime writes none of
// these; with the sandbox off, the agent can. It follows no link.
func checkCloneLayout(slug, gitDir string) error {
	fi, err := os.Lstat(gitDir)
	if err != nil {
		return fmt.Errorf("the clone projects/%s: %w", slug, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("the clone projects/%s has a .git that is not a directory, which Bonsai never makes; delete projects/%s, which the next beat clones again", slug, slug)
	}
	if fi, err := os.Lstat(filepath.Join(gitDir, "config")); err == nil && !fi.Mode().IsRegular() {
		return &TamperedError{Slug: slug, What: "a config that is not a regular file"}
	}
	for _, rel := range []string{"commondir", "objects/info/alternates", "objects/info/http-alternates"} {
		if _, err := os.Lstat(filepath.Join(gitDir, filepath.FromSlash(rel))); err == nil {
			return &TamperedError{Slug: slug, What: rel}
		}
	}
	return nil
}

// tips returns the commit each of refs (full names, refs/...) points at,
// "" for one that does not exist, read with one for-each-ref. Each name
// is matched whole: rev-parse would take "origin/main" from
// refs/heads/origin/main, a branch the agent can make, before
// refs/remotes/origin/main. A ref that points at something else than a
// commit is peeled to its commit (tip), "" when it has none.
func (c *cloneGit) tips(ctx context.Context, refs ...string) ([]string, error) {
	out, err := c.run(ctx, append([]string{"for-each-ref", "--format=%(objecttype) %(objectname) %(refname)"}, refs...)...)
	if err != nil {
		return nil, err
	}
	type object struct{ kind, name string }
	found := map[string]object{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) == 3 {
			found[f[2]] = object{f[0], f[1]}
		}
	}
	tips := make([]string, len(refs))
	for i, ref := range refs {
		switch o, ok := found[ref]; {
		case !ok:
		case o.kind == "commit":
			tips[i] = o.name
		default:
			if tips[i], err = c.tip(ctx, o.name); err != nil {
				return nil, err
			}
		}
	}
	return tips, nil
}

// isAncestor reports whether commit a is an ancestor of (or is) b.
func (c *cloneGit) isAncestor(ctx context.Context, a, b string) bool {
	_, err := c.run(ctx, "merge-base", "--is-ancestor", a, b)
	return err == nil
}
