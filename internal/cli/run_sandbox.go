package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/config"
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
	env := append(passGitIdentity(cwd), cfg.Agent.Env...)
	ex, err := openSandbox(cwd, sandboxSpec{
		Net: projectNetwork{Mode: sandbox.Network(network)}, Home: userHome(), DataDir: d.Path(),
		GitDir: linkedGitDir(cwd), Caches: caches, Env: env, Limits: sandboxLimits(cfg.Limits),
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

// linkedGitDir returns the .git directory of the clone whose linked
// worktree cwd is (cwd/.git is a file "gitdir: <clone>/.git/worktrees/<name>"),
// or "" for anything else: a plain repository's .git is inside cwd.
func linkedGitDir(cwd string) string {
	b, err := os.ReadFile(filepath.Join(cwd, ".git"))
	if err != nil {
		return ""
	}
	meta, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	meta = strings.TrimSpace(meta)
	if !filepath.IsAbs(meta) {
		meta = filepath.Join(cwd, meta)
	}
	if filepath.Base(filepath.Dir(meta)) != "worktrees" {
		return ""
	}
	return filepath.Dir(filepath.Dir(meta))
}
