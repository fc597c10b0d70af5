package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/beneath"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
)

// checkRunSandbox checks `bonsai run`'s --sandbox and --network flags.
func checkRunSandbox(o runOptions) error {
	if o.networkSet && !o.sandbox {
		return usagef("--network applies to sandboxed commands; add --sandbox (without it commands run on the host, with its network)")
	}
	if o.network != string(sandbox.NetworkNone) && o.network != string(sandbox.NetworkAll) {
		return usagef("--network %q is not one of none, all", o.network)
	}
	return nil
}

// openRunSandbox opens the sandbox executor of `bonsai run --sandbox` in
// the directory cwd: cwd writable, the home and the data directory hidden,
// the toolchain caches of runCaches, network none or all. When cwd is a
// linked git worktree its clone's .git is reachable, so commits work.
func openRunSandbox(d config.Dir, cfg config.Config, cwd, network string) (workspaceExecutor, error) {
	if err := sandboxUsable(sandboxAvailable); err != nil {
		return nil, fmt.Errorf("--sandbox: %w; or run without --sandbox, with commands on the host", err)
	}
	caches, err := cachesUnder(runCaches(d, cwd))
	if err != nil {
		return nil, err
	}
	// Before any command of this session ran; the .git file may still
	// be an earlier session's.
	gitDir, err := linkedGitDir(cwd, runCaches(d, cwd))
	if err != nil {
		return nil, fmt.Errorf("--sandbox: %w", err)
	}
	env := append(passGitIdentity(cwd), cfg.Agent.Env...)
	ex, err := openSandbox(cwd, sandboxSpec{
		Net: projectNetwork{Mode: sandbox.Network(network)}, Home: userHome(), DataDir: d.Path(),
		GitDir: gitDir, Caches: caches, Env: env, Limits: sandboxLimits(cfg.Limits),
	})
	if err != nil {
		return nil, fmt.Errorf("--sandbox: %w", err)
	}
	return ex, nil
}

// passGitIdentity puts the committer identity git finds for cwd on the
// host (~/.gitconfig, which the sandbox hides) into this process's
// GIT_AUTHOR_* and GIT_COMMITTER_* variables, unless set, and returns
// their names for sandbox.Options.Env, so the agent's commits in the
// sandbox carry the user's name. `bonsai run` is one process for one
// workspace, so its environment is the place.
func passGitIdentity(cwd string) []string {
	get := func(key string) string {
		out, err := exec.Command("git", "-C", cwd, "config", key).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	var names []string
	for _, v := range []struct{ key, author, committer string }{
		{"user.name", "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"},
		{"user.email", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"},
	} {
		val := get(v.key)
		for _, name := range []string{v.author, v.committer} {
			if os.Getenv(name) == "" && val != "" {
				os.Setenv(name, val)
			}
			names = append(names, name)
		}
	}
	return names
}

// maxGitFile bounds a worktree's .git file.
const maxGitFile = 4 << 10

// linkedGitDir returns the git directory of the repository whose linked
// worktree cwd is, for the sandbox to bind; "" when cwd is none (a plain
// repository's .git is inside cwd). cwd/.git is the agent's to write (an
// earlier session may have rewritten it), so what it names is only a
// candidate, read without following a link: it is taken when it is a
// real repository whose own worktrees/*/gitdir names cwd
// (executor.WorktreeMeta) and lies nowhere the sandbox lets commands
// write: not in cwd, not in the sandbox's writable dirs, not inside
// another git directory (whose objects, refs and logs the sandbox binds
// writable). A .git file that names anything else is an error.
func linkedGitDir(cwd string, writable ...string) (string, error) {
	fi, err := os.Lstat(filepath.Join(cwd, ".git"))
	if err != nil || !fi.Mode().IsRegular() {
		return "", nil // no worktree of another repository: nothing to bind
	}
	b, err := beneath.ReadFile(cwd, ".git", maxGitFile)
	if err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(cwd, ".git"), err)
	}
	meta, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", nil
	}
	meta = strings.TrimSpace(meta)
	if !filepath.IsAbs(meta) {
		meta = filepath.Join(cwd, meta)
	}
	if filepath.Base(filepath.Dir(meta)) != "worktrees" {
		return "", fmt.Errorf("%s names %s, which is no worktree's metadata; "+notLinkedFix, filepath.Join(cwd, ".git"), meta)
	}
	gitDir, err := filepath.EvalSymlinks(filepath.Dir(filepath.Dir(meta)))
	if err != nil {
		return "", fmt.Errorf("the git directory of %s: %w; "+notLinkedFix, cwd, err)
	}
	if err := outsideWritable(gitDir, append([]string{cwd}, writable...)); err != nil {
		return "", fmt.Errorf("%s names %s: %w; "+notLinkedFix, filepath.Join(cwd, ".git"), gitDir, err)
	}
	if _, err := executor.WorktreeMeta(cwd, gitDir); err != nil {
		return "", fmt.Errorf("%w; "+notLinkedFix, err)
	}
	return gitDir, nil
}

// notLinkedFix is what to do when a worktree's .git file names no
// repository the sandbox may bind.
const notLinkedFix = "if the worktree's .git file was rewritten, run `git worktree repair` in the main repository " +
	"(or recreate the worktree), or run without --sandbox"

// outsideWritable checks that the git directory gitDir (links resolved)
// is neither in one of the writable dirs nor below another git
// directory.
func outsideWritable(gitDir string, writable []string) error {
	for _, w := range writable {
		if real, err := filepath.EvalSymlinks(w); err == nil && within(gitDir, real) {
			return fmt.Errorf("a directory in %s, which the sandbox's commands can write", w)
		}
	}
	for d := filepath.Dir(gitDir); ; d = filepath.Dir(d) {
		if isGitDir(d) {
			return fmt.Errorf("a directory inside the git directory %s, which the sandbox's commands can write", d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// isGitDir reports whether dir looks like a git directory: a HEAD file
// and an objects directory.
func isGitDir(dir string) bool {
	h, err := os.Lstat(filepath.Join(dir, "HEAD"))
	if err != nil || !h.Mode().IsRegular() {
		return false
	}
	o, err := os.Lstat(filepath.Join(dir, "objects"))
	return err == nil && o.IsDir()
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
