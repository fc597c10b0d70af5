package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// twoMachines is one bare repository that two machines, each with its own
// data directory, work on a shared board.
type twoMachines struct {
	bare string
	proj board.Project
	tk   board.Ticket
	a, b *workspace.Provider
	recA *recorder
}

func newTwoMachines(t *testing.T) *twoMachines {
	t.Helper()
	root := t.TempDir()
	m := &twoMachines{bare: filepath.Join(root, "repo.git"), tk: ticket(7, "Resume me")}
	gittest.Run(t, root, "clone", "-q", "--bare", newRepo(t), m.bare)
	m.proj = project("file://" + m.bare)
	m.recA = &recorder{}
	m.a = sharedProvider(t, m.recA)
	m.b = sharedProvider(t, &recorder{})
	return m
}

// sharedProvider is a machine of a shared board: its own data directory.
func sharedProvider(t *testing.T, rec *recorder) *workspace.Provider {
	t.Helper()
	data := t.TempDir()
	p, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: rec.open, SharedBoard: true,
		OpenAgent: func(_ board.Project, root, _ string) (executor.Executor, error) { return rec.open(root) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// work prepares the ticket on machine p and commits a change to file
// there, returning the workspace and the commit; push pushes it.
func (m *twoMachines) work(t *testing.T, p *workspace.Provider, file string, push bool) (*workspace.Workspace, string) {
	t.Helper()
	ws := prepare(t, p, m.proj, m.tk)
	write(t, filepath.Join(ws.Root, file), file+"\n")
	gittest.Run(t, ws.Root, "add", ".")
	gittest.Run(t, ws.Root, "commit", "-q", "-m", "add "+file)
	if push {
		m.push(t, p, ws)
	}
	return ws, gittest.Run(t, ws.Root, "rev-parse", "HEAD")
}

func (m *twoMachines) push(t *testing.T, p *workspace.Provider, ws *workspace.Workspace) {
	t.Helper()
	if pushed, err := p.Push(context.Background(), m.proj, ws); err != nil || !pushed {
		t.Fatalf("Push = %v, %v", pushed, err)
	}
}

// remoteHead is the ticket branch's commit in the bare repository.
func (m *twoMachines) remoteHead(t *testing.T, branch string) string {
	t.Helper()
	return gittest.Run(t, m.bare, "rev-parse", "refs/heads/"+branch)
}

func checkAt(t *testing.T, ws *workspace.Workspace, want string) {
	t.Helper()
	if got := gittest.Run(t, ws.Root, "rev-parse", "HEAD"); got != want {
		t.Errorf("worktree at %s, want %s", got, want)
	}
	if got := gittest.Run(t, ws.Root, "rev-parse", "refs/heads/"+ws.Branch); got != want {
		t.Errorf("branch %s at %s, want %s", ws.Branch, got, want)
	}
	if got := gittest.Run(t, ws.Root, "symbolic-ref", "--short", "HEAD"); got != ws.Branch {
		t.Errorf("worktree on %s, want %s", got, ws.Branch)
	}
}

// TestPrepare_SharedBoardResumesFromThePushedBranch: machine B, with no
// clone yet, starts from the branch A pushed; A, behind once B pushed,
// moves to B's branch and its next push builds on it.
func TestPrepare_SharedBoardResumesFromThePushedBranch(t *testing.T) {
	t.Parallel()
	m := newTwoMachines(t)
	wsA, c1 := m.work(t, m.a, "a.txt", true)
	wsB := prepare(t, m.b, m.proj, m.tk)
	checkAt(t, wsB, c1)
	if !wsB.Created || wsB.Moved != nil {
		t.Errorf("B's first workspace: Created %v, Moved %+v; want a new worktree, nothing moved", wsB.Created, wsB.Moved)
	}
	_, c2 := m.work(t, m.b, "b.txt", true)

	wsA = prepare(t, m.a, m.proj, m.tk)
	checkAt(t, wsA, c2)
	if wsA.Created || wsA.Moved == nil || wsA.Moved.From != c1 || wsA.Moved.To != c2 || wsA.Moved.Lost() {
		t.Fatalf("A's Moved = %+v (Created %v), want %s → %s with nothing set aside", wsA.Moved, wsA.Created, c1, c2)
	}
	_, c3 := m.work(t, m.a, "c.txt", true)
	if got := m.remoteHead(t, wsA.Branch); got != c3 {
		t.Errorf("remote at %s, want A's %s", got, c3)
	}
	if log := gittest.Run(t, m.bare, "log", "--format=%s", wsA.Branch); log != "add c.txt\nadd b.txt\nadd a.txt\ninitial" {
		t.Errorf("remote history:\n%s", log)
	}
}

// TestPrepare_SharedBoardSetsAsideStaleLeftovers: uncommitted changes an
// older run left on A are stale once B pushed: they are set aside under a
// ref, through the worktree's own executor, and come back with `git stash
// apply`.
func TestPrepare_SharedBoardSetsAsideStaleLeftovers(t *testing.T) {
	t.Parallel()
	m := newTwoMachines(t)
	wsA, _ := m.work(t, m.a, "a.txt", true)
	write(t, filepath.Join(wsA.Root, "a.txt"), "half done\n")
	write(t, filepath.Join(wsA.Root, "new.txt"), "untracked\n")
	_, c2 := m.work(t, m.b, "b.txt", true)

	wsA = prepare(t, m.a, m.proj, m.tk)
	checkAt(t, wsA, c2)
	mv := wsA.Moved
	if mv == nil || mv.Leftovers == "" || mv.Backup != "" || !mv.Lost() {
		t.Fatalf("Moved = %+v, want leftovers and no backup", mv)
	}
	if !strings.HasPrefix(mv.Leftovers, "refs/bonsai/leftovers/"+wsA.Branch+"/") {
		t.Errorf("Leftovers = %s", mv.Leftovers)
	}
	if st := gittest.Run(t, wsA.Root, "status", "--porcelain"); st != "" {
		t.Errorf("worktree not clean after the move:\n%s", st)
	}
	if _, err := os.Stat(filepath.Join(wsA.Root, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("untracked leftover still in the worktree: %v", err)
	}
	if l := gittest.Run(t, wsA.Root, "stash", "list"); l != "" {
		t.Errorf("the clone's stash list holds %q, want it as it was", l)
	}
	// The stash, the checkout and the ref of the leftovers ran in the
	// worktree's executor, not the runtime's on the clone.
	for _, sub := range []string{"stash", "checkout"} {
		calls := m.recA.find(sub)
		if len(calls) == 0 {
			t.Errorf("no git %s ran", sub)
		}
		for _, c := range calls {
			if c.root != wsA.Root {
				t.Errorf("git %s ran in %s, want the worktree's executor", sub, c.root)
			}
		}
	}
	gittest.Run(t, wsA.Root, "stash", "apply", "--quiet", mv.Leftovers)
	for file, want := range map[string]string{"a.txt": "half done\n", "new.txt": "untracked\n", "b.txt": "b.txt\n"} {
		if b, err := os.ReadFile(filepath.Join(wsA.Root, file)); err != nil || string(b) != want {
			t.Errorf("%s after stash apply = %q, %v; want %q", file, b, err, want)
		}
	}
}

// TestPrepare_SharedBoardKeepsWorkTheRemoteLacks: a local branch ahead of
// the pushed one (A's push failed) is kept with its uncommitted changes,
// and so is one the remote did not move under since A last pushed, even
// rewritten (a rebase); the next push publishes either.
func TestPrepare_SharedBoardKeepsWorkTheRemoteLacks(t *testing.T) {
	t.Parallel()
	m := newTwoMachines(t)
	_, _ = m.work(t, m.a, "a.txt", true)
	wsA, c2 := m.work(t, m.a, "b.txt", false)
	write(t, filepath.Join(wsA.Root, "wip.txt"), "wip\n")

	wsA = prepare(t, m.a, m.proj, m.tk)
	checkAt(t, wsA, c2)
	if wsA.Moved != nil {
		t.Errorf("Moved = %+v for a branch ahead of the remote", wsA.Moved)
	}
	if b, err := os.ReadFile(filepath.Join(wsA.Root, "wip.txt")); err != nil || string(b) != "wip\n" {
		t.Errorf("uncommitted wip.txt = %q, %v; want it kept", b, err)
	}
	os.Remove(filepath.Join(wsA.Root, "wip.txt"))
	m.push(t, m.a, wsA)

	// A rewrites what it pushed; the remote did not move since.
	gittest.Run(t, wsA.Root, "commit", "-q", "--amend", "-m", "add b.txt, reworded")
	c2r := gittest.Run(t, wsA.Root, "rev-parse", "HEAD")
	wsA = prepare(t, m.a, m.proj, m.tk)
	checkAt(t, wsA, c2r)
	if wsA.Moved != nil {
		t.Errorf("Moved = %+v for a branch rewritten here", wsA.Moved)
	}
	m.push(t, m.a, wsA)
	if got := m.remoteHead(t, wsA.Branch); got != c2r {
		t.Errorf("remote at %s, want the rewritten %s", got, c2r)
	}
}

// TestPrepare_SharedBoardDivergedRemoteWins: when A's local commits and
// B's pushed ones diverged, A moves to B's and keeps its own under a
// backup ref; a machine whose worktree was removed moves its stale branch
// before it makes the worktree again.
func TestPrepare_SharedBoardDivergedRemoteWins(t *testing.T) {
	t.Parallel()
	m := newTwoMachines(t)
	wsA, c1 := m.work(t, m.a, "a.txt", true)
	_, cb := m.work(t, m.b, "b.txt", true)
	wsA, ca := m.work(t, m.a, "a2.txt", false) // A was behind: it moved to cb first
	if gittest.Run(t, wsA.Root, "rev-parse", "HEAD~1") != cb {
		t.Fatalf("A's commit is not on B's")
	}
	// B rewrites the branch meanwhile (its own rebase) and pushes.
	wsB := prepare(t, m.b, m.proj, m.tk)
	gittest.Run(t, wsB.Root, "reset", "-q", "--hard", c1)
	write(t, filepath.Join(wsB.Root, "b.txt"), "b again\n")
	gittest.Run(t, wsB.Root, "add", ".")
	gittest.Run(t, wsB.Root, "commit", "-q", "-m", "add b.txt again")
	m.push(t, m.b, wsB)
	cb2 := m.remoteHead(t, wsB.Branch)

	wsA = prepare(t, m.a, m.proj, m.tk)
	checkAt(t, wsA, cb2)
	mv := wsA.Moved
	if mv == nil || mv.From != ca || mv.To != cb2 || mv.Leftovers != "" || mv.Backup != "refs/bonsai/moved/"+wsA.Branch+"/"+ca[:12] {
		t.Fatalf("Moved = %+v, want %s → %s kept under refs/bonsai/moved/", mv, ca, cb2)
	}
	if got := gittest.Run(t, wsA.Root, "rev-parse", mv.Backup); got != ca {
		t.Errorf("%s at %s, want %s", mv.Backup, got, ca)
	}

	// A's worktree is removed (the ticket went to VERIFICATION); B
	// pushes again; A makes the worktree again from the pushed branch.
	if err := m.a.Remove(context.Background(), m.proj.Slug, m.tk.Number); err != nil {
		t.Fatal(err)
	}
	_, cb3 := m.work(t, m.b, "b3.txt", true)
	wsA = prepare(t, m.a, m.proj, m.tk)
	checkAt(t, wsA, cb3)
	if !wsA.Created || wsA.Moved == nil || wsA.Moved.Lost() {
		t.Errorf("Created %v, Moved %+v; want a new worktree on the pushed branch", wsA.Created, wsA.Moved)
	}
}

// TestPush_SharedBoardKeepsAPushItDidNotSee: after A prepared the ticket,
// B pushed (A's lease was lost), and a fetch on A for another ticket
// brought B's push in: A's push, at the end of its run, is refused rather
// than replacing B's commits.
func TestPush_SharedBoardKeepsAPushItDidNotSee(t *testing.T) {
	t.Parallel()
	m := newTwoMachines(t)
	m.work(t, m.a, "a.txt", true)
	wsA := prepare(t, m.a, m.proj, m.tk)
	_, cb := m.work(t, m.b, "b.txt", true)
	prepare(t, m.a, m.proj, ticket(8, "Another"))
	if got := gittest.Run(t, wsA.Root, "rev-parse", "refs/remotes/origin/"+wsA.Branch); got != cb {
		t.Fatalf("the fetch did not bring B's push: origin at %s, want %s", got, cb)
	}
	write(t, filepath.Join(wsA.Root, "late.txt"), "late\n")
	gittest.Run(t, wsA.Root, "add", ".")
	gittest.Run(t, wsA.Root, "commit", "-q", "-m", "late work")
	if pushed, err := m.a.Push(context.Background(), m.proj, wsA); err == nil || pushed {
		t.Fatalf("Push over B's unseen push = %v, %v; want it refused", pushed, err)
	}
	if got := m.remoteHead(t, wsA.Branch); got != cb {
		t.Errorf("remote at %s, want B's %s kept", got, cb)
	}
	// The next Prepare on A moves to B's branch, keeping the late commit.
	wsA = prepare(t, m.a, m.proj, m.tk)
	checkAt(t, wsA, cb)
	if wsA.Moved == nil || wsA.Moved.Backup == "" {
		t.Errorf("Moved = %+v, want the late commit kept", wsA.Moved)
	}
	if refs := gittest.Run(t, wsA.Root, "for-each-ref", "--format=%(refname)", "refs/bonsai/moved/"); !slices.Contains(strings.Split(refs, "\n"), wsA.Moved.Backup) {
		t.Errorf("refs/bonsai/moved/ holds %q", refs)
	}
}

// TestPrepare_SharedBoardForgetsARebaseLeftHalfway: a rebase an older
// run left stopped on a conflict on A is set aside with its conflict
// markers and forgotten when A moves to B's pushed branch.
func TestPrepare_SharedBoardForgetsARebaseLeftHalfway(t *testing.T) {
	t.Parallel()
	m := newTwoMachines(t)
	wsA, _ := m.work(t, m.a, "a.txt", true)
	gittest.Run(t, wsA.Root, "checkout", "-q", "-b", "side", "HEAD~1")
	write(t, filepath.Join(wsA.Root, "a.txt"), "theirs\n")
	gittest.Run(t, wsA.Root, "add", ".")
	gittest.Run(t, wsA.Root, "commit", "-q", "-m", "side a.txt")
	gittest.Run(t, wsA.Root, "checkout", "-q", wsA.Branch)
	if _, err := gittest.Git(wsA.Root, "rebase", "side"); err == nil {
		t.Fatal("the rebase did not conflict")
	}
	rebaseDir := gittest.Run(t, wsA.Root, "rev-parse", "--path-format=absolute", "--git-path", "rebase-merge")
	if _, err := os.Stat(rebaseDir); err != nil {
		t.Fatalf("no rebase in progress: %v", err)
	}
	_, cb := m.work(t, m.b, "b.txt", true)

	wsA = prepare(t, m.a, m.proj, m.tk)
	checkAt(t, wsA, cb)
	if wsA.Moved == nil || wsA.Moved.Leftovers == "" {
		t.Fatalf("Moved = %+v, want the rebase's files set aside", wsA.Moved)
	}
	if _, err := os.Stat(rebaseDir); !os.IsNotExist(err) {
		t.Errorf("the rebase is still in progress: %v", err)
	}
	if st := gittest.Run(t, wsA.Root, "status", "--porcelain"); st != "" {
		t.Errorf("worktree not clean after the move:\n%s", st)
	}
	if a := gittest.Run(t, wsA.Root, "show", wsA.Moved.Leftovers+":a.txt"); !strings.Contains(a, "<<<<<<<") {
		t.Errorf("a.txt set aside = %q, want the conflict markers", a)
	}
}

// TestLand_SharedBoardLandsThePushedBranch: A approves a ticket B worked
// last: what lands is B's push, not A's stale branch.
func TestLand_SharedBoardLandsThePushedBranch(t *testing.T) {
	t.Parallel()
	m := newTwoMachines(t)
	wsA, _ := m.work(t, m.a, "a.txt", true)
	_, cb := m.work(t, m.b, "b.txt", true)
	// B's beat recorded its work for review; A lands that.
	rv, err := m.b.Review(context.Background(), m.proj, 1, wsA.Branch)
	if err != nil || rv.Tip != cb {
		t.Fatalf("B's review = %+v, %v; want its tip %s", rv, err, cb)
	}
	l, err := m.a.Land(context.Background(), m.proj, workspace.LandRequest{Number: m.tk.Number, Branch: wsA.Branch, Tip: rv.Tip,
		Style: board.LandMergeCommit, Message: "Resume me (demo#7)", Person: approver})
	if err != nil {
		t.Fatal(err)
	}
	if main := gittest.Run(t, m.bare, "rev-parse", "main"); l.Commit != main || !l.FastForward || main != cb {
		t.Errorf("landed %+v, main at %s; want a fast-forward to B's %s", l, main, cb)
	}
}
