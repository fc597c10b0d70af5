package workspace_test

import (
	"context"
	"os"
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

// gitSubcommand is the git subcommand of argv past its -c settings, and
// its first argument.
func gitSubcommand(argv []string) (string, string) {
	i := 1
	for i+1 < len(argv) && argv[i] == "-c" {
		i += 2
	}
	if i >= len(argv) {
		return "", ""
	}
	if i+1 < len(argv) {
		return argv[i], argv[i+1]
	}
	return argv[i], ""
}

// configReads are the `git config` commands of calls that read one
// setting of a clone (everything but the one --list of the clone's
// check, the writes of two arguments, and the question whether a new
// clone skips git's templates, asked of the user's config).
func configReads(calls []call) []string {
	var out []string
	for _, c := range calls {
		if slices.Contains(c.argv, "init.templateDir") {
			continue
		}
		if sub, first := gitSubcommand(c.argv); sub == "config" && first != "--list" {
			rest := c.argv[slices.Index(c.argv, "config")+1:]
			if len(rest) == 1 || (len(rest) == 2 && strings.HasPrefix(rest[0], "--")) {
				out = append(out, strings.Join(rest, " "))
			}
		}
	}
	return out
}

// A run's set-up reads the clone's config once (the check's --list) and
// takes the identity and the remote's URL from what it read: on a new
// clone and on one already there, no single setting is read again, and a
// clone made with Options.AgentIdentity has it from the clone command.
func TestProvider_PrepareReadsTheConfigOnce(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	rec := &recorder{}
	p, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: rec.open, AgentIdentity: workspace.Identity{Name: "Agent", Email: "agent@example.invalid"},
	})
	if err != nil {
		t.Fatal(err)
	}
	proj := project(newRepo(t))
	for n := 1; n <= 2; n++ {
		rec.mu.Lock()
		rec.calls = nil
		rec.mu.Unlock()
		prepare(t, p, proj, ticket(n, "x"))
		rec.mu.Lock()
		calls := slices.Clone(rec.calls)
		rec.mu.Unlock()
		if reads := configReads(calls); len(reads) > 0 {
			t.Errorf("Prepare %d read single settings again: %q", n, reads)
		}
		var sets []string
		for _, c := range calls {
			if sub, first := gitSubcommand(c.argv); sub == "config" && first == "--local" {
				if rest := c.argv[slices.Index(c.argv, "config")+1:]; len(rest) == 3 {
					sets = append(sets, strings.Join(rest, " "))
				}
			}
		}
		if len(sets) > 0 {
			t.Errorf("Prepare %d wrote the identity the clone already had: %q", n, sets)
		}
	}
	clone := p.ClonePath("demo")
	for key, want := range map[string]string{"user.name": "Agent", "user.email": "agent@example.invalid"} {
		if got := gittest.Run(t, clone, "config", "--local", key); got != want {
			t.Errorf("clone's %s = %q, want %q", key, got, want)
		}
	}
}

// A ticket whose branch is on the remote (a resumed ticket) has Prepare
// read that branch from the clone into the review repository: the
// clone's config is listed once all the same.
func TestProvider_PrepareOfAPushedBranchListsTheConfigOnce(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	gittest.Run(t, src, "branch", "bonsai/demo/3-x")
	p, rec, _ := newProvider(t)
	tk := ticket(3, "x")
	tk.Branch = "bonsai/demo/3-x"
	prepare(t, p, project(src), tk)
	if n := len(rec.find("--list")); n != 1 {
		t.Errorf("Prepare listed the clone's config %d times, want 1", n)
	}
}

// A clone whose own config has another identity (a person changed it, or
// an older Bonsai wrote it) gets Options.AgentIdentity written back.
func TestProvider_PrepareRewritesAChangedIdentity(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	p, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open:          func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
		AgentIdentity: workspace.Identity{Name: "Agent", Email: "agent@example.invalid"},
	})
	if err != nil {
		t.Fatal(err)
	}
	proj := project(newRepo(t))
	prepare(t, p, proj, ticket(1, "x"))
	clone := p.ClonePath("demo")
	gittest.Run(t, clone, "config", "--local", "user.email", "someone@example.invalid")
	prepare(t, p, proj, ticket(2, "y"))
	if got := gittest.Run(t, clone, "config", "--local", "user.email"); got != "agent@example.invalid" {
		t.Errorf("clone's user.email = %q, want it written back", got)
	}
}

// Push lists the clone's config once (openClone's check) before it reads
// the branch from the clone, not a second time for the fetch.
func TestProvider_PushChecksTheConfigOnce(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, filepath.Dir(bare), "clone", "-q", "--bare", src, bare)
	p, rec, _ := newProvider(t)
	proj := project("file://" + bare)
	ws := prepare(t, p, proj, ticket(5, "Add feature"))
	os.WriteFile(filepath.Join(ws.Root, "feature.txt"), []byte("done\n"), 0o644)
	gittest.Run(t, ws.Root, "add", ".")
	gittest.Run(t, ws.Root, "commit", "-q", "-m", "add feature")
	before := len(rec.find("--list"))
	if pushed, err := p.Push(context.Background(), proj, ws); err != nil || !pushed {
		t.Fatalf("Push = %v, %v; want true, nil", pushed, err)
	}
	if n := len(rec.find("--list")) - before; n != 1 {
		t.Errorf("Push listed the clone's config %d times, want 1", n)
	}
}

// markRecorder records, in order, the marks given to an agent executor
// and the commands it runs.
type markRecorder struct {
	*local.Executor
	mu     sync.Mutex
	events []string
}

func (m *markRecorder) Mark(kv string) {
	m.mu.Lock()
	m.events = append(m.events, "mark "+kv)
	m.mu.Unlock()
	m.Executor.Mark(kv)
}

func (m *markRecorder) Exec(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	m.mu.Lock()
	sub, _ := gitSubcommand(argv)
	m.events = append(m.events, "exec "+sub)
	m.mu.Unlock()
	return m.Executor.Exec(ctx, argv, opts)
}

// Prepare marks the agent's executor with the context's run mark
// (executor.WithMark) before the checkout runs its first command, so a
// sandbox started for the checkout carries the mark and the run keeps it.
func TestProvider_PrepareMarksBeforeTheCheckout(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	var agent *markRecorder
	p, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
		OpenAgent: func(_ board.Project, root, _ string) (executor.Executor, error) {
			l, err := local.New(root, local.Options{})
			agent = &markRecorder{Executor: l}
			return agent, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := executor.WithMark(context.Background(), "BONSAI_RUN=r1")
	ws, err := p.Prepare(ctx, project(newRepo(t)), ticket(1, "x"))
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer ws.Close()
	want := []string{"mark BONSAI_RUN=r1", "exec checkout"}
	if !slices.Equal(agent.events, want) {
		t.Errorf("agent executor saw %q, want %q", agent.events, want)
	}
}

// A project's first Prepare clones and does not fetch what the clone
// just fetched; the next one, on the clone already there, fetches.
func TestProvider_PrepareDoesNotFetchAFreshClone(t *testing.T) {
	t.Parallel()
	p, rec, _ := newProvider(t)
	proj := project(newRepo(t))
	prepare(t, p, proj, ticket(1, "x"))
	if n := len(rec.find("clone")); n != 1 {
		t.Fatalf("the first Prepare ran %d clones, want 1", n)
	}
	if f := rec.find("fetch"); len(f) != 0 {
		t.Errorf("the first Prepare fetched right after cloning: %q", f[0].argv)
	}
	prepare(t, p, proj, ticket(2, "y"))
	if n := len(rec.find("fetch")); n != 1 {
		t.Errorf("the second Prepare ran %d fetches, want 1", n)
	}
}

// A run that made no commit leaves nothing to push: Push reads the
// branch's loose ref file and runs no git, on a new branch and on one
// already pushed; where the file cannot be read without following a link,
// or the ref is packed, git reads it by its full name and nothing is
// fetched, counted or pushed. A commit made after that is pushed, and so
// is a branch the agent moved elsewhere.
func TestProvider_PushOfAnUntouchedBranchFetchesNothing(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, filepath.Dir(bare), "clone", "-q", "--bare", src, bare)
	p, rec, _ := newProvider(t)
	proj := project("file://" + bare)
	ctx := context.Background()
	ws := prepare(t, p, proj, ticket(5, "Add feature"))
	clone := p.ClonePath("demo")
	pushOnly := func(what string, want bool) []call {
		t.Helper()
		rec.mu.Lock()
		before := len(rec.calls)
		rec.mu.Unlock()
		if pushed, err := p.Push(ctx, proj, ws); err != nil || pushed != want {
			t.Fatalf("Push %s = %v, %v; want %v, nil", what, pushed, err, want)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return slices.Clone(rec.calls[before:])
	}
	untouched := func(what string) {
		t.Helper()
		if calls := pushOnly(what, false); len(calls) != 0 {
			t.Errorf("Push %s ran git %q, want none", what, calls[0].argv)
		}
	}
	readByGit := func(what string) {
		t.Helper()
		calls := pushOnly(what, false)
		if len(calls) == 0 {
			t.Errorf("Push %s ran no git: it trusted a ref file it should not read", what)
		}
		for _, c := range calls {
			if sub, _ := gitSubcommand(c.argv); sub != "config" && sub != "for-each-ref" {
				t.Errorf("Push %s ran git %s, want only the config's check and one read", what, sub)
			}
		}
	}
	untouched("of a new branch")

	// A commit is pushed: after the two fetches, one read answers
	// whether the branch has commits the default branch lacks, and which
	// (the lease is the one other read).
	gittest.Run(t, ws.Root, "commit", "-q", "--allow-empty", "-m", "work")
	reads := map[string]int{}
	for _, c := range pushOnly("after a commit", true) {
		sub, _ := gitSubcommand(c.argv)
		reads[sub]++
	}
	if reads["rev-list"] > 0 || reads["rev-parse"]+reads["for-each-ref"] > 3 || reads["push"] != 1 {
		t.Errorf("Push after a commit ran %v, want one push and no more than three reads", reads)
	}
	untouched("of the branch it pushed")

	// The branch's directory is a link to a copy elsewhere: the host
	// does not follow it, git reads the ref.
	heads := filepath.Join(clone, ".git", "refs", "heads")
	moved := filepath.Join(t.TempDir(), "bonsai")
	if err := os.Rename(filepath.Join(heads, "bonsai"), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, filepath.Join(heads, "bonsai")); err != nil {
		t.Fatal(err)
	}
	readByGit("through a linked directory")
	if err := os.Remove(filepath.Join(heads, "bonsai")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, filepath.Join(heads, "bonsai")); err != nil {
		t.Fatal(err)
	}
	// A packed ref has no file of its own.
	gittest.Run(t, clone, "pack-refs", "--all")
	readByGit("of a packed ref")

	// The agent points the branch at an annotated tag of a new commit
	// (git refuses that, so it writes the ref's file): the commit is
	// pushed.
	gittest.Run(t, ws.Root, "commit", "-q", "--allow-empty", "-m", "tagged")
	gittest.Run(t, ws.Root, "tag", "-a", "-m", "a tag", "t1")
	tag := gittest.Run(t, ws.Root, "rev-parse", "refs/tags/t1")
	refFile := filepath.Join(heads, filepath.FromSlash(ws.Branch))
	if err := os.WriteFile(refFile, []byte(tag+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pushOnly("of a branch at a tag", true)
	if got, want := gittest.Run(t, bare, "rev-parse", ws.Branch), gittest.Run(t, ws.Root, "rev-parse", "t1^{commit}"); got != want {
		t.Errorf("remote %s at %s, want the tag's commit %s", ws.Branch, got, want)
	}

	// The agent points the branch at another commit, not through its
	// worktree's HEAD: it is pushed.
	other := gittest.Run(t, ws.Root, "commit-tree", "-p", "HEAD^{commit}", "-m", "elsewhere", "HEAD^{tree}")
	gittest.Run(t, ws.Root, "update-ref", "refs/heads/"+ws.Branch, other)
	pushOnly("of a moved branch", true)
	if got := gittest.Run(t, bare, "rev-parse", ws.Branch); got != other {
		t.Errorf("remote %s at %s, want %s", ws.Branch, got, other)
	}
}

// A project's first run on a branch the remote does not have has no
// lease to record: Prepare makes no review repository (no git init); the
// first push makes it, and pushes.
func TestProvider_PrepareOfANewBranchMakesNoReviewRepository(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, filepath.Dir(bare), "clone", "-q", "--bare", src, bare)
	p, rec, data := newProvider(t)
	proj := project("file://" + bare)
	ws := prepare(t, p, proj, ticket(5, "Add feature"))
	review := filepath.Join(data, "projects", ".review", "demo.git")
	if n := len(rec.find("init")); n != 0 {
		t.Errorf("Prepare ran git init %d times, want none", n)
	}
	if _, err := os.Lstat(review); !os.IsNotExist(err) {
		t.Errorf("Prepare made the review repository: %v", err)
	}
	gittest.Run(t, ws.Root, "commit", "-q", "--allow-empty", "-m", "work")
	if pushed, err := p.Push(context.Background(), proj, ws); err != nil || !pushed {
		t.Fatalf("Push = %v, %v; want true, nil", pushed, err)
	}
	if got, want := gittest.Run(t, bare, "rev-parse", ws.Branch), gittest.Run(t, ws.Root, "rev-parse", "HEAD"); got != want {
		t.Errorf("remote %s at %s, want %s", ws.Branch, got, want)
	}
	if _, err := os.Lstat(filepath.Join(review, "HEAD")); err != nil {
		t.Errorf("the push made no review repository: %v", err)
	}
}
