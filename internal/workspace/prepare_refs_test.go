package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// hostGit counts the git commands the host ran, by subcommand.
func hostGit(calls []call) map[string]int {
	n := map[string]int{}
	for _, c := range calls {
		if sub, _ := gitSubcommand(c.argv); sub != "" {
			n[sub]++
		}
	}
	return n
}

// Prepare reads every ref it needs in one for-each-ref and prunes no
// worktree while none is stale: on a new clone and on one already there,
// no rev-parse and no worktree prune run on the host, and the workspace
// says where it left the branch.
func TestProvider_PrepareReadsTheRefsOnce(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	p, rec, _ := newProvider(t)
	proj := project(repo)
	main := gittest.Run(t, repo, "rev-parse", "main")
	for n := 1; n <= 2; n++ {
		rec.mu.Lock()
		rec.calls = nil
		rec.mu.Unlock()
		ws := prepare(t, p, proj, ticket(n, "x"))
		rec.mu.Lock()
		got := hostGit(rec.calls)
		rec.mu.Unlock()
		if got["for-each-ref"] != 1 || got["rev-parse"] != 0 || got["worktree"] != 1 {
			t.Errorf("Prepare %d ran %v on the host, want one for-each-ref, no rev-parse, one worktree add", n, got)
		}
		// No review repository is made while the remote has no branch
		// of the ticket's, and no lease is forgotten that was never
		// recorded.
		if got["update-ref"] != 0 || got["init"] != 0 {
			t.Errorf("Prepare %d ran %d update-ref and %d init, want none", n, got["update-ref"], got["init"])
		}
		if ws.Head != main {
			t.Errorf("Prepare %d: Head = %q, want main's %s", n, ws.Head, main)
		}
		if head := gittest.Run(t, ws.Root, "rev-parse", "HEAD"); head != main {
			t.Errorf("Prepare %d: the worktree is at %s, want main's %s", n, head, main)
		}
	}
}

// A new ticket branch starts from the remote's default branch itself: a
// branch the agent made in the clone named like it ("origin/main", which
// rev-parse would take first) changes nothing.
func TestProvider_NewBranchIgnoresALookalikeRef(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	p, _, _ := newProvider(t)
	proj := project(repo)
	prepare(t, p, proj, ticket(1, "x"))
	clone := p.ClonePath("demo")
	main := gittest.Run(t, clone, "rev-parse", "refs/remotes/origin/main")
	tree := gittest.Run(t, clone, "rev-parse", "refs/remotes/origin/main^{tree}")
	planted := gittest.Run(t, clone, "-c", "user.name=agent", "-c", "user.email=agent@example.invalid",
		"commit-tree", "-p", main, "-m", "planted", tree)
	gittest.Run(t, clone, "update-ref", "refs/heads/origin/main", planted)
	gittest.Run(t, clone, "update-ref", "refs/tags/origin/main", planted)
	ws := prepare(t, p, proj, ticket(2, "y"))
	if head := gittest.Run(t, clone, "rev-parse", "refs/heads/"+ws.Branch); head != main {
		t.Errorf("the new branch starts at %s, want the remote's main %s (not the planted %s)", head, main, planted)
	}
}

// A worktree removed by hand while git still lists it is made again: the
// add that git refuses is retried after a prune.
func TestProvider_PrepareAfterTheWorktreeWasRemovedByHand(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	p, rec, _ := newProvider(t)
	proj := project(repo)
	ws := prepare(t, p, proj, ticket(1, "x"))
	ws.Close()
	if err := os.RemoveAll(ws.Root); err != nil {
		t.Fatal(err)
	}
	ws = prepare(t, p, proj, ticket(1, "x"))
	if _, err := os.Stat(ws.Root + "/README.md"); err != nil {
		t.Fatalf("the worktree made again has no files: %v", err)
	}
	if len(rec.find("prune")) != 1 {
		t.Errorf("pruned %d times, want once (after git refused the add)", len(rec.find("prune")))
	}
	if list := gittest.Run(t, p.ClonePath("demo"), "worktree", "list"); strings.Count(list, "\n") != 1 {
		t.Errorf("git lists the worktrees:\n%s\nwant the clone and the ticket's", list)
	}
}

// A ticket branch deleted from the remote after it was pushed leaves no
// lease behind: the next Prepare forgets the one recorded at the push,
// and the next push makes the branch again.
func TestProvider_PrepareForgetsTheLeaseOfADeletedBranch(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, filepath.Dir(bare), "clone", "-q", "--bare", src, bare)
	p, _, data := newProvider(t)
	proj := project("file://" + bare)
	ctx := context.Background()
	tk := ticket(5, "Add feature")
	ws := prepare(t, p, proj, tk)
	gittest.Run(t, ws.Root, "commit", "-q", "--allow-empty", "-m", "work")
	if pushed, err := p.Push(ctx, proj, ws); err != nil || !pushed {
		t.Fatalf("Push = %v, %v; want true, nil", pushed, err)
	}
	review := filepath.Join(data, "projects", ".review", "demo.git")
	leases := func() string {
		return gittest.Run(t, review, "for-each-ref", "--format=%(refname)", "refs/bonsai/seen/")
	}
	if leases() == "" {
		t.Fatal("the push recorded no lease")
	}
	gittest.Run(t, bare, "branch", "-D", ws.Branch)
	ws.Close()
	tk.Branch = ws.Branch
	ws = prepare(t, p, proj, tk)
	if got := leases(); got != "" {
		t.Errorf("Prepare kept the lease %s of a branch the remote no longer has", got)
	}
	gittest.Run(t, ws.Root, "commit", "-q", "--allow-empty", "-m", "more work")
	if pushed, err := p.Push(ctx, proj, ws); err != nil || !pushed {
		t.Fatalf("Push after the branch was deleted = %v, %v; want true, nil", pushed, err)
	}
	if got, want := gittest.Run(t, bare, "rev-parse", ws.Branch), gittest.Run(t, ws.Root, "rev-parse", "HEAD"); got != want {
		t.Errorf("remote %s at %s, want %s", ws.Branch, got, want)
	}
}

// A new ticket's worktree is added detached at the default branch's
// commit, and the checkout in the worktree's own executor makes the
// branch there: on the branch, with its files, no upstream. A worktree
// a crash left between the two (detached, no files, no branch) gets both
// at the next Prepare.
func TestProvider_NewBranchIsMadeByTheCheckout(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	p, rec, _ := newProvider(t)
	proj := project(repo)
	main := gittest.Run(t, repo, "rev-parse", "main")
	onBranch := func(ws *workspace.Workspace) {
		t.Helper()
		if got := gittest.Run(t, ws.Root, "symbolic-ref", "HEAD"); got != "refs/heads/"+ws.Branch {
			t.Errorf("the worktree's HEAD is %s, want the branch %s", got, ws.Branch)
		}
		if got := gittest.Run(t, ws.Root, "rev-parse", "refs/heads/"+ws.Branch); got != main || ws.Head != main {
			t.Errorf("the branch is at %s (Head %s), want main's %s", got, ws.Head, main)
		}
		if _, err := os.Stat(filepath.Join(ws.Root, "README.md")); err != nil {
			t.Errorf("the worktree has no files: %v", err)
		}
		if st := gittest.Run(t, ws.Root, "status", "--porcelain"); st != "" {
			t.Errorf("the new worktree is not clean:\n%s", st)
		}
	}
	ws := prepare(t, p, proj, ticket(1, "x"))
	onBranch(ws)
	if up := gittest.Run(t, ws.Root, "for-each-ref", "--format=%(upstream)", "refs/heads/"+ws.Branch); up != "" {
		t.Errorf("the new branch tracks %s, want nothing", up)
	}
	for _, c := range rec.find("worktree") {
		if slices.Contains(c.argv, "-b") {
			t.Errorf("the host made the branch with %q", c.argv)
		}
	}

	// A crash between the add and the checkout.
	clone := p.ClonePath("demo")
	root := p.WorktreePath("demo", 2)
	gittest.Run(t, clone, "worktree", "add", "--quiet", "--no-checkout", "--detach", root, main)
	ws = prepare(t, p, proj, ticket(2, "y"))
	onBranch(ws)
}
