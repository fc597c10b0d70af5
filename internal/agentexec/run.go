package agentexec

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// OpenRun opens the sandbox of `bonsai run --sandbox` in the directory
// cwd: cwd writable, the home and the data directory hidden, toolchain
// caches of its own under the data directory, network none or all. When
// cwd is a linked git worktree its clone's .git is reachable
// (executor.LinkedGitDir), so commits work.
func (x *Executors) OpenRun(cwd string, network Network) (Closer, error) {
	if err := Usable(x.Available); err != nil {
		return nil, fmt.Errorf("--sandbox: %w; or run without --sandbox, with commands on the host", err)
	}
	caches, err := cachesUnder(runCaches(x.Data, cwd))
	if err != nil {
		return nil, err
	}
	// Before any command of this session ran; the .git file may still
	// be an earlier session's.
	gitDir, err := executor.LinkedGitDir(cwd, runCaches(x.Data, cwd))
	if err != nil {
		return nil, fmt.Errorf("--sandbox: %w", err)
	}
	env := append(passGitIdentity(cwd), x.Env...)
	ex, err := x.OpenSandbox(cwd, Spec{
		Network: network, Home: x.Home, DataDir: x.Data.Path(),
		GitDir: gitDir, Caches: caches, Env: env,
	})
	if err != nil {
		return nil, fmt.Errorf("--sandbox: %w", err)
	}
	return ex, nil
}

// passGitIdentity puts the committer identity git finds for cwd on the
// host (~/.gitconfig, which the sandbox hides) into this process's
// GIT_AUTHOR_* and GIT_COMMITTER_* variables, unless set, and returns
// their names for the sandbox's environment, so the agent's commits in
// the sandbox carry the user's name. `bonsai run` is one process for one
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
