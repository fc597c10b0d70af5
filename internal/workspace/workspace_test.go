package workspace_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// newRepo creates a repository with one commit on main and returns its path.
func newRepo(t *testing.T) string {
	t.Helper()
	return gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"README.md": "# demo\n"})
}

// call is one command an executor ran.
type call struct {
	root string
	argv []string
	env  []string
}

// recorder wraps local.Executor and records every command run through it.
type recorder struct {
	mu    sync.Mutex
	calls []call
}

func (r *recorder) open(root string) (executor.Executor, error) {
	l, err := local.New(root, local.Options{})
	if err != nil {
		return nil, err
	}
	return &recordingExec{Executor: l, r: r, root: root}, nil
}

func (r *recorder) find(sub string) []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []call
	for _, c := range r.calls {
		if slices.Contains(c.argv, sub) {
			out = append(out, c)
		}
	}
	return out
}

type recordingExec struct {
	*local.Executor
	r    *recorder
	root string
}

func (e *recordingExec) Exec(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	e.r.mu.Lock()
	e.r.calls = append(e.r.calls, call{root: e.root, argv: argv, env: opts.Env})
	e.r.mu.Unlock()
	return e.Executor.Exec(ctx, argv, opts)
}

func newProvider(t *testing.T) (*workspace.Provider, *recorder, string) {
	t.Helper()
	data := t.TempDir()
	rec := &recorder{}
	p, err := workspace.New(workspace.Options{
		Projects:  filepath.Join(data, "projects"),
		Worktrees: filepath.Join(data, "worktrees"),
		Open:      rec.open,
		RemoteEnv: []string{"BONSAI_TEST_CREDENTIAL=secret"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, rec, data
}

func project(repo string) board.Project {
	return board.Project{ID: "p1", Slug: "demo", Name: "Demo", Repo: repo, DefaultBranch: "main", Active: true}
}

func ticket(n int, title string) board.Ticket {
	return board.Ticket{ID: "t" + title, ProjectSlug: "demo", Number: n, Title: title, State: board.Research}
}

func prepare(t *testing.T, p *workspace.Provider, proj board.Project, tk board.Ticket) *workspace.Workspace {
	t.Helper()
	ws, err := p.Prepare(context.Background(), proj, tk)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func TestProvider_PrepareClonesAndCreatesWorktree(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	p, rec, data := newProvider(t)
	ws := prepare(t, p, project(repo), ticket(3, "Fix the login page!"))

	if want := filepath.Join(data, "worktrees", "demo", "3"); ws.Root != want {
		t.Errorf("Root = %s, want %s", ws.Root, want)
	}
	if ws.Branch != "bonsai/demo/3-fix-the-login-page" || ws.Base != "origin/main" || ws.Remote != "origin" || !ws.Created {
		t.Errorf("workspace = %+v", ws)
	}
	if got := gittest.Run(t, ws.Root, "rev-parse", "--abbrev-ref", "HEAD"); got != ws.Branch {
		t.Errorf("HEAD on %q, want %q", got, ws.Branch)
	}
	if got, want := gittest.Run(t, ws.Root, "rev-parse", "HEAD"), gittest.Run(t, repo, "rev-parse", "main"); got != want {
		t.Errorf("branch starts at %s, want main's %s", got, want)
	}
	if _, err := os.Stat(filepath.Join(data, "projects", "demo", ".git")); err != nil {
		t.Errorf("no clone in projects/demo: %v", err)
	}
	// The agent's executor is rooted at the worktree.
	b, err := ws.Exec.ReadFile(context.Background(), "README.md")
	if err != nil || string(b) != "# demo\n" {
		t.Errorf("ReadFile through the workspace executor = %q, %v", b, err)
	}
	// Every git command ran through the executor; only the clone (and a
	// fetch, which a fresh clone does not need) got the runtime's
	// credentials.
	for _, c := range rec.calls {
		if c.argv[0] != "git" {
			t.Errorf("ran %v, want git only", c.argv)
		}
		net := slices.Contains(c.argv, "clone") || slices.Contains(c.argv, "fetch")
		if has := slices.Contains(c.env, "BONSAI_TEST_CREDENTIAL=secret"); has != net {
			t.Errorf("%v: credentials passed = %v", c.argv, has)
		}
	}
	if len(rec.find("clone")) != 1 || len(rec.find("fetch")) != 0 {
		t.Errorf("want one clone and no fetch, got %d and %d", len(rec.find("clone")), len(rec.find("fetch")))
	}
}

func TestProvider_PrepareReusesWorktreeAndFetches(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	p, rec, _ := newProvider(t)
	proj := project(repo)
	ws := prepare(t, p, proj, ticket(1, "First"))
	os.WriteFile(filepath.Join(ws.Root, "wip.txt"), []byte("unsaved work\n"), 0o644)

	// A new commit upstream reaches the next ticket's branch.
	os.WriteFile(filepath.Join(repo, "NEW.md"), []byte("new\n"), 0o644)
	gittest.Run(t, repo, "add", ".")
	gittest.Run(t, repo, "commit", "-q", "-m", "upstream change")

	again := prepare(t, p, proj, ticket(1, "First"))
	if again.Created {
		t.Error("second Prepare created the worktree again")
	}
	if b, err := os.ReadFile(filepath.Join(again.Root, "wip.txt")); err != nil || string(b) != "unsaved work\n" {
		t.Errorf("uncommitted work lost: %q, %v", b, err)
	}
	second := prepare(t, p, proj, ticket(2, "Second"))
	if _, err := os.Stat(filepath.Join(second.Root, "NEW.md")); err != nil {
		t.Errorf("ticket 2 does not start from the fetched default branch: %v", err)
	}
	if n := len(rec.find("clone")); n != 1 {
		t.Errorf("cloned %d times, want once", n)
	}
	if n := len(rec.find("fetch")); n != 2 {
		t.Errorf("fetched %d times, want once per Prepare but the cloning one (2)", n)
	}
}

func TestProvider_PushAndRemove(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, filepath.Dir(bare), "clone", "-q", "--bare", src, bare)
	p, rec, _ := newProvider(t)
	proj := project("file://" + bare)
	ctx := context.Background()
	ws := prepare(t, p, proj, ticket(5, "Add feature"))

	if pushed, err := p.Push(ctx, proj, ws); err != nil || pushed {
		t.Fatalf("Push without commits = %v, %v; want false, nil", pushed, err)
	}
	os.WriteFile(filepath.Join(ws.Root, "feature.txt"), []byte("done\n"), 0o644)
	gittest.Run(t, ws.Root, "add", ".")
	gittest.Run(t, ws.Root, "commit", "-q", "-m", "add feature")
	pushed, err := p.Push(ctx, proj, ws)
	if err != nil || !pushed {
		t.Fatalf("Push = %v, %v; want true, nil", pushed, err)
	}
	if got, want := gittest.Run(t, bare, "rev-parse", ws.Branch), gittest.Run(t, ws.Root, "rev-parse", "HEAD"); got != want {
		t.Errorf("remote %s at %s, want %s", ws.Branch, got, want)
	}
	for _, c := range rec.find("push") {
		if !slices.Contains(c.env, "BONSAI_TEST_CREDENTIAL=secret") {
			t.Errorf("push ran without the runtime's credentials: %v", c.env)
		}
	}

	if ns, err := p.Worktrees("demo"); err != nil || !slices.Equal(ns, []int{5}) {
		t.Errorf("Worktrees = %v, %v; want [5]", ns, err)
	}
	if err := p.Remove(ctx, "demo", 5); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := os.Stat(ws.Root); !os.IsNotExist(err) {
		t.Errorf("worktree still there: %v", err)
	}
	clone := p.ClonePath("demo")
	if got := gittest.Run(t, clone, "worktree", "list"); strings.Contains(got, ws.Root) {
		t.Errorf("git still lists the worktree:\n%s", got)
	}
	gittest.Run(t, clone, "rev-parse", "--verify", ws.Branch) // the branch is kept
	if err := p.Remove(ctx, "demo", 5); err != nil {
		t.Errorf("second Remove: %v", err)
	}
}

func TestProvider_BadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("RepoCannotBeCloned", func(t *testing.T) {
		p, _, _ := newProvider(t)
		_, err := p.Prepare(ctx, project(filepath.Join(t.TempDir(), "missing")), ticket(1, "x"))
		if err == nil || !strings.Contains(err.Error(), "clone") {
			t.Fatalf("Prepare = %v, want a clone error", err)
		}
		var re *workspace.RepoError
		if !errors.As(err, &re) {
			t.Errorf("Prepare = %T, want a *RepoError so that beats back off", err)
		}
		if _, err := os.Stat(p.ClonePath("demo")); !os.IsNotExist(err) {
			t.Errorf("failed clone left %s behind", p.ClonePath("demo"))
		}
	})
	t.Run("DefaultBranchMissing", func(t *testing.T) {
		p, _, _ := newProvider(t)
		proj := project(newRepo(t))
		proj.DefaultBranch = "develop"
		_, err := p.Prepare(ctx, proj, ticket(1, "x"))
		if err == nil || !strings.Contains(err.Error(), `default branch "develop" not found`) {
			t.Fatalf("Prepare = %v", err)
		}
	})
	t.Run("BranchDeleted", func(t *testing.T) {
		p, _, _ := newProvider(t)
		tk := ticket(4, "Gone")
		tk.Branch = "bonsai/4-gone"
		ws := prepare(t, p, project(newRepo(t)), tk)
		if !ws.Recreated || ws.Branch != "bonsai/4-gone" {
			t.Errorf("workspace = %+v, want the branch recreated", ws)
		}
	})
	t.Run("StaleDirectory", func(t *testing.T) {
		p, _, _ := newProvider(t)
		dir := p.WorktreePath("demo", 1)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "junk"), []byte("x"), 0o644)
		ws := prepare(t, p, project(newRepo(t)), ticket(1, "x"))
		if _, err := os.Stat(filepath.Join(ws.Root, "README.md")); err != nil {
			t.Errorf("stale directory not replaced by a worktree: %v", err)
		}
	})
}

func TestProvider_SetsIdentityWhenMissing(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	p, _, _ := newProvider(t)
	ws := prepare(t, p, project(newRepo(t)), ticket(1, "x"))
	var out bytes.Buffer
	exit, err := ws.Exec.Exec(context.Background(), []string{"git", "config", "user.email"}, executor.RunOptions{Output: &out})
	if err != nil || exit.Code != 0 || strings.TrimSpace(out.String()) != "bonsai@localhost" {
		t.Errorf("git config user.email in the worktree = %q (exit %d, %v)", out.String(), exit.Code, err)
	}
}

func TestBranchName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		slug  string
		n     int
		title string
		want  string
	}{
		{"demo", 12, "Fix login", "bonsai/demo/12-fix-login"},
		{"web-app", 1, "  Ünïcode & symbols: v2.0 ", "bonsai/web-app/1-n-code-symbols-v2-0"},
		{"demo", 7, "!!!", "bonsai/demo/7"},
		{"x", 9, "A very long title that goes on and on well past the limit", "bonsai/x/9-a-very-long-title-that-goes-on-and-on"},
	} {
		got := workspace.BranchName(tc.slug, tc.n, tc.title)
		if got != tc.want {
			t.Errorf("BranchName(%q, %d, %q) = %q, want %q", tc.slug, tc.n, tc.title, got, tc.want)
		}
		if err := board.ValidateBranch(got); err != nil {
			t.Errorf("BranchName(%q, %d, %q) = %q: %v", tc.slug, tc.n, tc.title, got, err)
		}
	}
	// Projects sharing a repository never share a branch.
	if a, b := workspace.BranchName("a", 1, "Fix"), workspace.BranchName("b", 1, "Fix"); a == b {
		t.Errorf("projects a and b share branch %q", a)
	}
}

// TestProvider_PrepareKeepsRecordedLegacyBranch: a ticket that recorded a
// branch named before branch names held the project keeps working on it,
// with its commits.
func TestProvider_PrepareKeepsRecordedLegacyBranch(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	gittest.Run(t, repo, "checkout", "-q", "-b", "bonsai/5-old-work")
	os.WriteFile(filepath.Join(repo, "old.txt"), []byte("old\n"), 0o644)
	gittest.Run(t, repo, "add", "old.txt")
	gittest.Run(t, repo, "commit", "-q", "-m", "old work")
	gittest.Run(t, repo, "checkout", "-q", "main")
	p, _, _ := newProvider(t)
	tk := ticket(5, "Old work")
	tk.Branch = "bonsai/5-old-work"
	ws := prepare(t, p, project(repo), tk)
	if ws.Branch != "bonsai/5-old-work" || ws.Recreated {
		t.Fatalf("workspace = %+v, want the recorded branch", ws)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "old.txt")); err != nil {
		t.Errorf("the worktree lacks the branch's commit: %v", err)
	}
}

// TestProvider_OpenAgent: the worktree's executor comes from OpenAgent,
// given the project, the worktree and the clone, while the runtime's git
// commands keep running through Open; an OpenAgent error fails Prepare
// and keeps its cause.
func TestProvider_OpenAgent(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	data := t.TempDir()
	runtime, agent := &recorder{}, &recorder{}
	var gotProject, gotRoot, gotClone string
	refuse := false
	p, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: runtime.open,
		OpenAgent: func(pr board.Project, root, clone string) (executor.Executor, error) {
			gotProject, gotRoot, gotClone = pr.Slug, root, clone
			if refuse {
				return nil, fmt.Errorf("%w: no bwrap", executor.ErrSandboxUnavailable)
			}
			return agent.open(root)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ws := prepare(t, p, project(repo), ticket(1, "One"))
	if gotProject != "demo" || gotRoot != ws.Root || gotClone != filepath.Join(data, "projects", "demo") {
		t.Errorf("OpenAgent(%q, %q, %q), want demo, %s and the clone", gotProject, gotRoot, gotClone, ws.Root)
	}
	if _, err := ws.Exec.Exec(context.Background(), []string{"git", "status"}, executor.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(agent.find("status")) != 1 || len(agent.find("clone")) != 0 {
		t.Errorf("agent executor ran %v", agent.calls)
	}
	if len(runtime.find("clone")) != 1 || len(runtime.find("status")) != 0 {
		t.Errorf("runtime executor ran %v", runtime.calls)
	}
	refuse = true
	_, err = p.Prepare(context.Background(), project(repo), ticket(2, "Two"))
	if !errors.Is(err, executor.ErrSandboxUnavailable) {
		t.Fatalf("Prepare = %v, want ErrSandboxUnavailable", err)
	}
}

// TestProvider_CopiesUserIdentityIntoClone: the user's git identity is
// written into the clone's own config, also of a clone made before, so
// commits work where ~/.gitconfig is out of sight (the sandbox hides the
// home).
func TestProvider_CopiesUserIdentityIntoClone(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ada\n\temail = ada@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, data := newProvider(t)
	repo := newRepo(t)
	prepare(t, p, project(repo), ticket(1, "x"))
	clone := filepath.Join(data, "projects", "demo")
	local := func(key string) string {
		out, _ := exec.Command("git", "-C", clone, "config", "--local", key).Output()
		return strings.TrimSpace(string(out))
	}
	if local("user.name") != "Ada" || local("user.email") != "ada@example.com" {
		t.Errorf("clone identity = %q <%q>", local("user.name"), local("user.email"))
	}
	// A clone made before, without an identity of its own, gets one.
	for _, k := range []string{"user.name", "user.email"} {
		if out, err := exec.Command("git", "-C", clone, "config", "--local", "--unset", k).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	prepare(t, p, project(repo), ticket(2, "y"))
	if local("user.email") != "ada@example.com" {
		t.Errorf("an older clone's identity = %q", local("user.email"))
	}
}

func TestProvider_Head(t *testing.T) {
	t.Parallel()
	p, _, _ := newProvider(t)
	proj := project(newRepo(t))
	ctx := context.Background()
	ws := prepare(t, p, proj, ticket(3, "Head"))

	before, err := p.Head(ctx, proj, ws.Branch)
	if err != nil || before != gittest.Run(t, ws.Root, "rev-parse", "HEAD") {
		t.Fatalf("Head = %q, %v; want the worktree's HEAD", before, err)
	}
	os.WriteFile(filepath.Join(ws.Root, "x.txt"), []byte("x\n"), 0o644)
	gittest.Run(t, ws.Root, "add", ".")
	gittest.Run(t, ws.Root, "commit", "-q", "-m", "x")
	after, err := p.Head(ctx, proj, ws.Branch)
	if err != nil || after == before || after != gittest.Run(t, ws.Root, "rev-parse", "HEAD") {
		t.Errorf("Head after a commit = %q, %v; want the new commit, not %q", after, err, before)
	}
	if h, err := p.Head(ctx, proj, "bonsai/demo/no-such-branch"); err != nil || h != "" {
		t.Errorf("Head of a missing branch = %q, %v; want empty, nil", h, err)
	}
}
