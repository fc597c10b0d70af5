package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
	"github.com/bonsai-run/bonsai/internal/gittest"
)

// linkedWorktree makes a repository with a linked worktree of it and
// returns the worktree, the repository's .git and the worktree's
// metadata directory.
func linkedWorktree(t *testing.T, dir, name string) (wt, gitDir, meta string) {
	t.Helper()
	repo := filepath.Join(dir, "repo")
	if _, err := os.Stat(repo); err != nil {
		gittest.Repo(t, repo, map[string]string{"README.md": "hi\n"})
	}
	wt = filepath.Join(dir, name)
	gittest.Run(t, repo, "worktree", "add", "-q", "-b", name, wt)
	meta = strings.TrimSpace(gittest.Run(t, wt, "rev-parse", "--absolute-git-dir"))
	return wt, filepath.Join(repo, ".git"), meta
}

// requireBwrap skips the test where the sandbox cannot start, except on
// CI.
func requireBwrap(t *testing.T) {
	t.Helper()
	if err := sandbox.Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bwrap is required on CI: %v", err)
		}
		t.Skip(err)
	}
}

// hostTempDir is a temporary directory outside the sandbox's private
// /tmp, so the sandbox sees it as the host's.
func hostTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "bonsai-run-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// sandboxRun runs command in `bonsai run --sandbox`'s sandbox on cwd and
// returns its output; the sandbox may refuse to open.
func sandboxRun(t *testing.T, cwd, command string) (string, error) {
	t.Helper()
	requireBwrap(t)
	d := config.Dir(filepath.Join(t.TempDir(), "data"))
	ex, err := openRunSandbox(d, config.Config{}, cwd, "none")
	if err != nil {
		return "", err
	}
	defer ex.Close()
	var out, stderr strings.Builder
	_, err = ex.Exec(context.Background(), []string{"sh", "-c", command}, executor.RunOptions{Output: &out, Stderr: &stderr})
	return out.String() + stderr.String(), err
}

// `bonsai run --sandbox` in a linked worktree: commits work, through the
// clone's metadata found from the clone's side.
func TestRunSandboxCommitsInALinkedWorktree(t *testing.T) {
	t.Parallel()
	wt, _, _ := linkedWorktree(t, hostTempDir(t), "wt")
	out, err := sandboxRun(t, wt, "echo x > f && git add f && git -c user.name=a -c user.email=a@b commit -qm f && echo COMMITTED")
	if err != nil || !strings.Contains(out, "COMMITTED") {
		t.Fatalf("commit in the sandbox: %v\n%s", err, out)
	}
}

// The worktree's .git file is the agent's to write: what it names is
// never bound writable. A previous session rewrote it to name a git
// directory the agent built in the worktree, whose refs is a link to a
// host directory; or another worktree's metadata.
func TestRunSandboxIgnoresTheGitFile(t *testing.T) {
	t.Parallel()
	dir := hostTempDir(t)
	wt, gitDir, meta := linkedWorktree(t, dir, "wt")
	_, _, otherMeta := linkedWorktree(t, dir, "other")
	host := filepath.Join(dir, "host")
	if err := os.MkdirAll(host, 0o755); err != nil {
		t.Fatal(err)
	}
	realWt, err := filepath.EvalSymlinks(wt)
	if err != nil {
		t.Fatal(err)
	}
	// The agent can write the worktree and the clone's refs.
	fake := fakeGitDir(t, filepath.Join(wt, "fake"), realWt, filepath.Join("..", "..", "host"))
	inRefs := fakeGitDir(t, filepath.Join(gitDir, "refs", "fake"), realWt, filepath.Join("..", "..", "..", "..", "host"))
	for _, c := range []struct{ name, gitdir, refused string }{
		{"a directory the agent built", filepath.Join(fake, "worktrees", "x"), "which the sandbox's commands can write"},
		{"a directory in the clone's refs", filepath.Join(inRefs, "worktrees", "x"), "inside the git directory"},
		{"another worktree's metadata", otherMeta, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			gitdir := c.gitdir
			if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := sandboxRun(t, wt, "echo pwned > "+filepath.Join(host, "pwned")+"; echo pwned > "+filepath.Join(otherMeta, "pwned")+"; echo RAN")
			t.Logf("%v\n%s", err, out)
			if c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "git worktree repair")) {
				t.Errorf("the sandbox opened (%v): want it refused, naming the fix", err)
			}
			for _, p := range []string{filepath.Join(host, "pwned"), filepath.Join(otherMeta, "pwned")} {
				if _, err := os.Stat(p); err == nil {
					os.Remove(p)
					t.Fatalf("%s was written from the sandbox: a directory the .git file named was bound writable", p)
				}
			}
		})
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+meta+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeGitDir builds at dir what an agent can build where it writes: a
// git directory whose worktrees/x names the worktree at realWt and whose
// refs is a link to hostRel (relative to dir, so that bwrap finds its
// target inside the new root too).
func fakeGitDir(t *testing.T, dir, realWt, hostRel string) string {
	t.Helper()
	for _, d := range []string{"worktrees/x", "objects", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"worktrees/x/gitdir": filepath.Join(realWt, ".git") + "\n", "HEAD": "ref: refs/heads/x\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(hostRel, filepath.Join(dir, "refs")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// `bonsai mcp --ticket --root DIR` binds the project's repository into
// the sandbox, found from the repository's side. The agent pointed the
// worktree's .git file at a repository it built (its refs a link to a
// host directory) before the server started, and back afterwards: the
// verify command still cannot write the host directory.
func TestMCP_TicketScopeIgnoresTheGitFile(t *testing.T) {
	t.Parallel()
	requireBwrap(t)
	ta := newTestApp(t)
	ta.run("init")
	repo := demoBoard(t, ta)
	dir := hostTempDir(t)
	host := filepath.Join(dir, "host")
	if err := os.MkdirAll(host, 0o755); err != nil {
		t.Fatal(err)
	}
	ta.run("project", "edit", "demo", "--verify", "echo pwned > "+filepath.Join(host, "pwned"))
	wt := filepath.Join(dir, "wt")
	gittest.Run(t, repo, "worktree", "add", "-q", "-b", "t1", wt)
	gittest.Run(t, repo, "update-ref", "refs/remotes/origin/main", "HEAD")
	if err := os.WriteFile(filepath.Join(wt, "f.txt"), []byte("work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, wt, "add", "f.txt")
	gittest.Run(t, wt, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "work")
	realWt, err := filepath.EvalSymlinks(wt)
	if err != nil {
		t.Fatal(err)
	}
	gitFile := filepath.Join(wt, ".git")
	orig, err := os.ReadFile(gitFile)
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeGitDir(t, filepath.Join(dir, "evil", ".git"), realWt, filepath.Join("..", "..", "host"))
	if err := os.WriteFile(gitFile, []byte("gitdir: "+filepath.Join(fake, "worktrees", "x")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := stdioClient(t, ta, "--ticket", "demo#1", "--root", wt)
	if err := os.WriteFile(gitFile, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := callTool(t, cs, "ticket_move", map[string]any{"to": "VERIFICATION",
		"criteria": []any{map[string]any{"criterion": "the thing is done", "evidence": "f.txt"}}})
	t.Log(out)
	if !strings.Contains(out, "verify command") {
		t.Fatalf("the verify command did not run: %s", out)
	}
	if _, err := os.Stat(filepath.Join(host, "pwned")); err == nil {
		t.Fatal("the verify command wrote the host directory: the repository the .git file named was bound")
	}
}
