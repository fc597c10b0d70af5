package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// agentSide marks the commands run through a worktree's own executor (the
// sandbox in production): a planted program that runs there writes
// "agent" in the marker, one the host's git runs writes "host".
type agentSide struct{ executor.Executor }

func (a agentSide) Exec(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	opts.Env = append(append([]string{}, opts.Env...), "BONSAI_TEST_SIDE=agent")
	return a.Executor.Exec(ctx, argv, opts)
}

func (a agentSide) Shell(ctx context.Context, script string, opts executor.RunOptions) (executor.Exit, error) {
	opts.Env = append(append([]string{}, opts.Env...), "BONSAI_TEST_SIDE=agent")
	return a.Executor.Shell(ctx, script, opts)
}

// plantFixture is a project cloned by the runtime, with ticket 1's
// worktree holding one commit the runtime has not pushed, and a program
// that appends "<side> <args>" to marker when something runs it.
type plantFixture struct {
	p       *workspace.Provider
	proj    board.Project
	ws      *workspace.Workspace
	bare    string // the project's repository
	clone   string // its clone's .git
	marker  string
	program string
}

func newPlantFixture(t *testing.T) *plantFixture {
	t.Helper()
	src := newRepo(t)
	f := &plantFixture{bare: filepath.Join(t.TempDir(), "remote.git")}
	gittest.Run(t, filepath.Dir(f.bare), "clone", "-q", "--bare", src, f.bare)
	dir := t.TempDir()
	f.marker = filepath.Join(dir, "ran")
	f.program = filepath.Join(dir, "evil.sh")
	write(t, f.program, "#!/bin/sh\necho \"${BONSAI_TEST_SIDE:-host} $*\" >> "+f.marker+"\ncat\n")
	os.Chmod(f.program, 0o755)
	data := t.TempDir()
	var err error
	f.p, err = workspace.New(workspace.Options{
		Projects:  filepath.Join(data, "projects"),
		Worktrees: filepath.Join(data, "worktrees"),
		Open:      func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
		OpenAgent: func(_ board.Project, root, _ string) (executor.Executor, error) {
			l, err := local.New(root, local.Options{})
			return agentSide{l}, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.proj = project("file://" + f.bare)
	f.ws = prepare(t, f.p, f.proj, ticket(1, "Feature"))
	write(t, filepath.Join(f.ws.Root, "feature.txt"), "done\n")
	gittest.Run(t, f.ws.Root, "add", ".")
	gittest.Run(t, f.ws.Root, "commit", "-q", "-m", "add feature")
	f.clone = filepath.Join(f.p.ClonePath("demo"), ".git")
	return f
}

// hooks writes hooks that run the program into dir.
func (f *plantFixture) hooks(t *testing.T, dir string, names ...string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	for _, h := range names {
		write(t, filepath.Join(dir, h), "#!/bin/sh\n"+f.program+" hook "+h+" </dev/null\n")
		os.Chmod(filepath.Join(dir, h), 0o755)
	}
}

// person pushes a commit of file to the project's main, as a person.
func (f *plantFixture) person(t *testing.T, file, content string) {
	t.Helper()
	other := filepath.Join(t.TempDir(), "person")
	gittest.Run(t, filepath.Dir(other), "clone", "-q", f.bare, other)
	personCommit(t, other, file, content)
	gittest.Run(t, other, "push", "-q", "origin", "main")
}

// everyHook are the hooks the host's commands would run.
var everyHook = []string{"post-checkout", "reference-transaction", "pre-push", "post-index-change", "pre-auto-gc", "fsmonitor-watchman"}

// plantCase is something the agent plants in the clone (with the sandbox
// off, or through what the sandbox lets it write).
type plantCase struct {
	name  string
	plant func(t *testing.T, f *plantFixture)
	// late plants after Prepare, before Push (the agent's run).
	late func(t *testing.T, f *plantFixture)
	// refused: Prepare, Push and Head refuse, naming this.
	refused string
	// agentRan: the planted program must have run on the agent's side
	// (it was live, and ran where the agent's commands run).
	agentRan bool
}

var plantCases = []plantCase{
	{name: "hooks in .git/hooks", plant: func(t *testing.T, f *plantFixture) {
		f.hooks(t, filepath.Join(f.clone, "hooks"), everyHook...)
	}},
	{name: "core.hooksPath", plant: func(t *testing.T, f *plantFixture) {
		dir := filepath.Join(f.ws.Root, ".evil-hooks")
		f.hooks(t, dir, everyHook...)
		gittest.Run(t, f.ws.Root, "config", "core.hooksPath", dir)
	}},
	{name: "core.fsmonitor", plant: func(t *testing.T, f *plantFixture) {
		gittest.Run(t, f.ws.Root, "config", "core.fsmonitor", f.program)
	}},
	{name: "smudge filter", agentRan: true, plant: func(t *testing.T, f *plantFixture) {
		gittest.Run(t, f.ws.Root, "config", "filter.x.smudge", f.program+" smudge")
		f.person(t, ".gitattributes", "*.txt filter=x\n")
		f.person(t, "notes.txt", "notes\n")
	}},
	{name: "include.path to the agent's file", refused: "include.path", plant: func(t *testing.T, f *plantFixture) {
		inc := filepath.Join(f.ws.Root, "evil.inc")
		write(t, inc, "[core]\n\thooksPath = "+filepath.Join(f.ws.Root, ".evil-hooks")+"\n\tfsmonitor = "+f.program+"\n")
		f.hooks(t, filepath.Join(f.ws.Root, ".evil-hooks"), everyHook...)
		gittest.Run(t, f.ws.Root, "config", "include.path", inc)
	}},
	{name: "alternates", refused: "objects/info/alternates", plant: func(t *testing.T, f *plantFixture) {
		other := gittest.Repo(t, filepath.Join(t.TempDir(), "other"), map[string]string{"secret.txt": "another project's\n"})
		write(t, filepath.Join(f.clone, "objects", "info", "alternates"), filepath.Join(other, ".git", "objects")+"\n")
	}},
	{name: "commondir", refused: "commondir", plant: func(t *testing.T, f *plantFixture) {
		other := gittest.Repo(t, filepath.Join(t.TempDir(), "other"), map[string]string{"secret.txt": "another project's\n"})
		gittest.Run(t, other, "config", "core.hooksPath", filepath.Join(other, "hooks"))
		f.hooks(t, filepath.Join(other, "hooks"), everyHook...)
		write(t, filepath.Join(f.clone, "commondir"), filepath.Join(other, ".git")+"\n")
	}},
	{name: "linked config", refused: "config that is not a regular file", plant: func(t *testing.T, f *plantFixture) {
		evil := filepath.Join(f.ws.Root, "evil.config")
		b, _ := os.ReadFile(filepath.Join(f.clone, "config"))
		write(t, evil, string(b))
		os.Remove(filepath.Join(f.clone, "config"))
		os.Symlink(evil, filepath.Join(f.clone, "config"))
	}},
	{name: "replace refs", plant: func(t *testing.T, f *plantFixture) {
		// The agent's commit shows as one with other content to a git
		// that honours refs/replace.
		tree := gittest.Run(t, f.ws.Root, "rev-parse", "HEAD~1^{tree}")
		fake := gittest.Run(t, f.ws.Root, "commit-tree", "-p", "HEAD~1", "-m", "harmless", tree)
		gittest.Run(t, f.ws.Root, "replace", "HEAD", fake)
	}},
	{name: "moved origin/main", plant: func(*testing.T, *plantFixture) {}, late: func(t *testing.T, f *plantFixture) {
		// Push would count no commit beyond origin/main.
		gittest.Run(t, f.ws.Root, "update-ref", "refs/remotes/origin/main", "HEAD")
	}},
}

// TestProvider_HostGitRunsNothingTheAgentPlanted is issue 25's rule for
// the host's git in the clone: whatever the agent plants there (hooks,
// core.hooksPath, an fsmonitor, a smudge filter with its attributes, an
// include of a file it writes, alternates, a commondir, a linked config,
// replace refs, a moved origin/main), Prepare (a reused and a new
// worktree), Push, Head and Remove run none of it on the host, and push
// exactly the agent's commit; what git would obey in a way the command
// line cannot undo is refused, naming it.
func TestProvider_HostGitRunsNothingTheAgentPlanted(t *testing.T) {
	t.Parallel()
	for _, c := range plantCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			testPlant(t, c)
		})
	}
}

func testPlant(t *testing.T, c plantCase) {
	ctx := context.Background()
	f := newPlantFixture(t)
	head := gittest.Run(t, f.ws.Root, "rev-parse", "HEAD")
	c.plant(t, f)

	var errs []error
	ws1, err := f.p.Prepare(ctx, f.proj, ticket(1, "Feature"))
	if err == nil {
		ws1.Close()
	}
	errs = append(errs, err)
	ws2, err := f.p.Prepare(ctx, f.proj, ticket(2, "Another"))
	if err == nil {
		ws2.Close()
	}
	errs = append(errs, err)
	if c.late != nil {
		c.late(t, f)
	}
	pushed, err := f.p.Push(ctx, f.proj, f.ws)
	errs = append(errs, err)
	_, err = f.p.Head(ctx, f.proj, f.ws.Branch)
	errs = append(errs, err)
	if err := f.p.Remove(ctx, "demo", 2); err != nil {
		t.Errorf("Remove: %v", err)
	}

	if c.refused != "" {
		for i, err := range errs {
			if err == nil || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("operation %d = %v; want a refusal naming %q", i, err, c.refused)
			}
		}
		if hasBranch(f.bare, f.ws.Branch) {
			t.Errorf("the branch was pushed from a refused clone")
		}
	} else {
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("operations failed: %v", err)
		}
		if !pushed {
			t.Errorf("Push = false; the branch has a commit the default branch lacks")
		}
		if got := gittest.Run(t, f.bare, "rev-parse", "refs/heads/"+f.ws.Branch); got != head {
			t.Errorf("pushed %s, want the agent's commit %s", got, head)
		}
		if got := gittest.Run(t, f.bare, "show", head+":feature.txt"); got != "done" {
			t.Errorf("pushed feature.txt = %q, want the agent's", got)
		}
	}
	b, _ := os.ReadFile(f.marker)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "host") {
			t.Errorf("the host ran what the agent planted: %s", line)
		}
	}
	if c.agentRan && !strings.Contains(string(b), "agent") {
		t.Errorf("the planted program never ran on the agent's side, so the case tests nothing:\n%s", b)
	}
}

// TestProvider_NewWorktreeIsCheckedOutInTheSandbox: with a real bubblewrap
// sandbox as the worktree's executor, a new worktree's files are written
// there, and a smudge filter in the clone's config, named by the default
// branch's .gitattributes, runs inside the sandbox, not on the host.
func TestProvider_NewWorktreeIsCheckedOutInTheSandbox(t *testing.T) {
	t.Parallel()
	if err := sandbox.Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	src := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"README.md": "# demo\n", ".gitattributes": "*.txt filter=x\n", "notes.txt": "notes\n"})
	hostOnly := filepath.Join(t.TempDir(), "host-only") // /tmp is the sandbox's own
	write(t, hostOnly, "")
	data := t.TempDir()
	p, err := workspace.New(workspace.Options{
		Projects:  filepath.Join(data, "projects"),
		Worktrees: filepath.Join(data, "worktrees"),
		Open:      func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
		OpenAgent: func(_ board.Project, root, clone string) (executor.Executor, error) {
			return sandbox.New(root, sandbox.Options{Home: filepath.Join(t.TempDir(), "home"), DataDir: data, GitDir: filepath.Join(clone, ".git"), PerCommand: true})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	proj := project(src)
	ws := prepare(t, p, proj, ticket(1, "First"))
	gittest.Run(t, ws.Root, "config", "filter.x.smudge", "if test -e "+hostOnly+"; then echo host; else echo sandbox; fi >> .smudged; cat")
	ws2 := prepare(t, p, proj, ticket(2, "Second"))
	if b, err := os.ReadFile(filepath.Join(ws2.Root, "notes.txt")); err != nil || string(b) != "notes\n" {
		t.Fatalf("notes.txt in the new worktree = %q, %v", b, err)
	}
	if st := gittest.Run(t, ws2.Root, "status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Errorf("the new worktree is not clean:\n%s", st)
	}
	if b, err := os.ReadFile(filepath.Join(ws2.Root, ".smudged")); err != nil || strings.TrimSpace(string(b)) != "sandbox" {
		t.Errorf("the smudge filter ran: %q, %v; want once, in the sandbox", b, err)
	}
}

// TestProvider_PushLeaseIsNotTheAgents: someone pushes to the ticket
// branch after the runtime's push; the agent fetches their commit and
// points origin/<branch> (and refs/bonsai/synced/<branch>) at it, so
// that a lease read from the clone would let the runtime's next push
// replace it. The lease is what the runtime itself recorded: the push is
// refused and their commit stays.
func TestProvider_PushLeaseIsNotTheAgents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPlantFixture(t)
	if pushed, err := f.p.Push(ctx, f.proj, f.ws); err != nil || !pushed {
		t.Fatalf("first Push = %v, %v", pushed, err)
	}
	other := filepath.Join(t.TempDir(), "other")
	gittest.Run(t, filepath.Dir(other), "clone", "-q", "-b", f.ws.Branch, f.bare, other)
	gittest.Run(t, other, "commit", "-q", "--allow-empty", "-m", "someone else's commit")
	gittest.Run(t, other, "push", "-q", "origin", f.ws.Branch)
	theirs := gittest.Run(t, other, "rev-parse", "HEAD")

	gittest.Run(t, f.ws.Root, "fetch", "-q", f.bare, f.ws.Branch)
	gittest.Run(t, f.ws.Root, "update-ref", "refs/remotes/origin/"+f.ws.Branch, theirs)
	gittest.Run(t, f.ws.Root, "update-ref", "refs/bonsai/synced/"+f.ws.Branch, theirs)
	gittest.Run(t, f.ws.Root, "commit", "-q", "--amend", "-m", "add feature, reworded")
	if pushed, err := f.p.Push(ctx, f.proj, f.ws); err == nil || pushed {
		t.Errorf("Push over their commit = %v, %v; want a refusal", pushed, err)
	}
	if got := gittest.Run(t, f.bare, "rev-parse", f.ws.Branch); got != theirs {
		t.Errorf("remote branch at %s, want their %s kept", got, theirs)
	}
}
