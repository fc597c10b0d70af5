package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// maxGitError is how much of git's stderr (its end) an error keeps.
const maxGitError = 600

// localTimeout bounds git commands that do not touch the network.
const localTimeout = 2 * time.Minute

// remoteSettings keep the repository's code out of the commands that hold
// the runtime's credentials. The clone's config is shared with every
// worktree, so the agent's commands (or a tool they run: husky sets
// core.hooksPath on npm install) can point core.hooksPath at the
// repository's scripts; clone, fetch and push would then run them with the
// credentials in their environment. Git LFS's pre-push hook does not run
// either. The ext:: and fd:: transports stay off even if a user's config
// allows every protocol. What `-c` cannot undo is refused by checkConfig.
var remoteSettings = []string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false",
	"-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never"}

// gitRunner runs git through an executor.
type gitRunner struct {
	ex         executor.Executor
	projects   string // the host path the executor is rooted at
	remoteEnv  []string
	netTimeout time.Duration
	progress   io.Writer // Options.CloneProgress
	localEnv   []string  // given to commands that do not use the network
}

// GitError is a git command that exited non-zero.
type GitError struct {
	Args   []string
	Code   int
	Stderr string
}

// Error implements the error interface with the end of git's stderr,
// credentials in URLs redacted.
func (e *GitError) Error() string {
	msg := Redact(strings.TrimSpace(e.Stderr))
	if len(msg) > maxGitError {
		msg = "…" + msg[len(msg)-maxGitError:]
	}
	if msg == "" {
		return fmt.Sprintf("git %s: exit status %d", e.command(), e.Code)
	}
	return fmt.Sprintf("git %s: %s", e.command(), msg)
}

// command is the git command that failed, past the "-c key=value"
// settings given before it.
func (e *GitError) command() string {
	i := 0
	for i+1 < len(e.Args) && e.Args[i] == "-c" {
		i += 2
	}
	if i < len(e.Args) {
		return e.Args[i]
	}
	return "git"
}

// withRemoteEnv returns a runner whose remote commands get env.
func (g *gitRunner) withRemoteEnv(env []string) *gitRunner {
	c := *g
	c.remoteEnv = env
	return &c
}

// run runs git args in dir (relative to the executor's root) and returns
// its standard output: only in the runtime's own repositories (the review
// and scratch repositories); in a clone, cloneGit.run.
func (g *gitRunner) run(ctx context.Context, dir string, args ...string) (string, error) {
	return g.do(ctx, dir, false, args...)
}

// clone runs git clone in the projects directory, with the runtime's
// credentials and the network timeout. The new clone has no config of its
// own yet, so there is nothing to check.
func (g *gitRunner) clone(ctx context.Context, args ...string) (string, error) {
	flag := "--quiet"
	if g.progress != nil {
		flag = "--progress"
	}
	return g.do(ctx, ".", true, append([]string{"clone", flag}, args...)...)
}

func (g *gitRunner) do(ctx context.Context, dir string, net bool, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	opts := executor.RunOptions{Dir: dir, Output: &stdout, Stderr: &stderr, Timeout: localTimeout}
	if args[0] == "clone" && g.progress != nil {
		opts.Stderr = io.MultiWriter(&stderr, g.progress)
	}
	argv := []string{"git"}
	opts.Env = g.localEnv
	if net {
		opts.Env, opts.Timeout = g.remoteEnv, g.netTimeout
		argv = append(argv, remoteSettings...)
	}
	exit, err := g.ex.Exec(ctx, append(argv, args...), opts)
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	if exit.TimedOut {
		return "", fmt.Errorf("git %s: timed out after %s", args[0], opts.Timeout)
	}
	if exit.Canceled {
		return "", fmt.Errorf("git %s: %w", args[0], ctx.Err())
	}
	if exit.Code != 0 {
		return "", &GitError{Args: args, Code: exit.Code, Stderr: stderr.String()}
	}
	return strings.TrimSpace(stdout.String()), nil
}

// withEnv returns a runner whose local commands get env too.
func (g *gitRunner) withEnv(env []string) *gitRunner {
	c := *g
	c.localEnv = env
	return &c
}
