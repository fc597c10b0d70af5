package forgesync_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/land"
)

// TestReviewCycle is the review cycle end to end on each forge: the
// ticket reaching VERIFICATION opens a pull request, changes requested on
// the forge return it with the review as feedback, the agent fixes it,
// the pull request updates, approval merges it, the ticket is DONE and
// its worktree removed.
func TestReviewCycle(t *testing.T) {
	for _, k := range forge.Kinds() {
		t.Run(string(k), func(t *testing.T) { reviewCycle(t, k) })
	}
}

func reviewCycle(t *testing.T, k forge.Kind) {
	ctx := context.Background()
	e := newEnv(t, k)
	e.project()
	tk := e.ticket("Greet the world", board.InProgress, "hello.txt says hello")
	ref := tk.Ref()
	e.runner.steps = append(e.runner.steps,
		func(ctx context.Context, job heartbeat.Job) heartbeat.Outcome {
			commit(t, ctx, job, "hello.txt", "hello", "Add hello.txt")
			submit(t, ctx, job, "hello.txt holds hello")
			return heartbeat.Outcome{Status: board.RunCompleted}
		},
		func(ctx context.Context, job heartbeat.Job) heartbeat.Outcome {
			var fb string
			for _, c := range job.Comments {
				if c.Kind == board.KindFeedback {
					fb = c.Content
				}
			}
			if !strings.Contains(fb, "**carol** requested changes") || !strings.Contains(fb, "> Say hello to the world, not just hello.") ||
				!strings.Contains(fb, "hello.txt") || !strings.Contains(fb, "> Needs a newline.") {
				t.Errorf("the returned ticket's feedback does not quote the review:\n%s", fb)
			}
			if job.Task != board.TaskFeedback {
				t.Errorf("task = %s; want feedback", job.Task)
			}
			commit(t, ctx, job, "hello.txt", "hello, world", "Greet the whole world")
			submit(t, ctx, job, "hello.txt holds hello, world")
			return heartbeat.Outcome{Status: board.RunCompleted}
		})

	// 1. The agent's work reaches VERIFICATION: the pull request opens.
	rep := e.beat()
	if len(rep.Runs) != 1 || rep.Runs[0].MovedTo != board.Verification || !rep.Runs[0].Pushed || rep.Runs[0].PullRequestError != "" {
		t.Fatalf("first beat: %+v", rep.Runs)
	}
	prs := e.forge.Pulls("acme", "widget")
	if len(prs) != 1 {
		t.Fatalf("pull requests: %+v", prs)
	}
	pr := prs[0]
	branch := e.get(ref).Branch
	if pr.Title != "Greet the world (demo#1)" || pr.Head != branch || pr.Base != "main" ||
		!strings.Contains(pr.Body, "hello.txt holds hello") || !strings.Contains(pr.Body, "http://bonsai.test/t/demo/1") {
		t.Fatalf("pull request %+v", pr)
	}
	bare := e.forge.BareDir("acme", "widget")
	if head := gittest.Run(t, bare, "rev-parse", "refs/heads/"+branch); pr.HeadSHA != head {
		t.Fatalf("pull request head %s; the pushed branch is at %s", pr.HeadSHA, head)
	}
	l := e.landing(ref)
	if l.Mode != board.LandPR || l.PRNumber != 1 || l.PRState != board.PROpen || l.Forge != string(k) || l.PRURL == "" {
		t.Fatalf("landing %+v", l)
	}

	// 2. Nothing happens on the forge: the beat asks once, conditionally.
	e.forge.ResetRequests()
	rep = e.beat()
	if rep.Reviews == nil || rep.Reviews.Open != 1 || len(rep.Runs) != 0 {
		t.Fatalf("idle beat: reviews %+v, runs %+v", rep.Reviews, rep.Runs)
	}
	e.beat()
	if reqs := e.forge.Requests(); reqs[len(reqs)-1].Status != 304 || !reqs[len(reqs)-1].Conditional {
		t.Fatalf("an idle beat's request: %+v", reqs)
	}

	// 3. Changes requested: the ticket returns with the review, and the
	// agent fixes it in the same beat; the pull request updates.
	e.forge.Review("acme", "widget", 1, "carol", forge.ChangesRequested, "Say hello to the world, not just hello.")
	e.forge.Comment("acme", "widget", 1, "carol", "hello.txt", 1, "Needs a newline.")
	rep = e.beat()
	if rep.Reviews.Returned != 1 || len(rep.Runs) != 1 || rep.Runs[0].MovedTo != board.Verification {
		t.Fatalf("review beat: reviews %+v, runs %+v", rep.Reviews, rep.Runs)
	}
	if e.runner.runs() != 2 {
		t.Fatalf("%d agent runs; want 2", e.runner.runs())
	}
	pr = e.forge.PR("acme", "widget", 1)
	if head := gittest.Run(t, bare, "rev-parse", "refs/heads/"+branch); pr.HeadSHA != head || pr.HeadSHA == prs[0].HeadSHA {
		t.Fatalf("pull request head %s after the fix; the branch is at %s (was %s)", pr.HeadSHA, head, prs[0].HeadSHA)
	}
	if !strings.Contains(pr.Body, "hello, world") {
		t.Fatalf("pull request body not updated: %s", pr.Body)
	}
	if n := len(e.forge.Pulls("acme", "widget")); n != 1 {
		t.Fatalf("%d pull requests; the fix must update the first", n)
	}
	e.beat() // reads the pushed head, with no review to give

	// 4. A person approves in Bonsai: the Lander merges the pull request
	// through the forge and the ticket is DONE.
	lander := land.New(land.Options{Store: e.db, Git: e.ws, PullRequests: e.forges})
	res, err := lander.Approve(ctx, land.Approval{Ref: ref, Author: "alice", Person: land.Person{Name: "Alice", Email: "alice@example.com"}})
	if err != nil || res.Outcome != land.Landed {
		t.Fatalf("approve: %+v, %v", res, err)
	}
	got := e.forge.PR("acme", "widget", 1)
	if got.State != forge.Merged || got.MergeMethod != "squash" || res.Landing.Commit != got.MergeCommit {
		t.Fatalf("after approval %+v (landing %+v)", got, res.Landing)
	}
	if st := e.get(ref).State; st != board.Done {
		t.Fatalf("ticket %s after approval", st)
	}
	merged := land.Merged{Commit: got.MergeCommit}
	e.forge.ResetRequests()
	rep = e.beat()
	if rep.Removed != 1 || rep.Runs == nil || len(rep.Runs) != 0 || len(e.forge.Requests()) > 1 {
		t.Fatalf("after DONE: removed %d, runs %+v, requests %+v", rep.Removed, rep.Runs, e.forge.Requests())
	}
	// The merged pull request is no longer followed.
	e.forge.ResetRequests()
	if rep = e.beat(); rep.Reviews.Open != 0 || len(e.forge.Requests()) != 0 {
		t.Fatalf("a merged pull request is still followed: %+v, %+v", rep.Reviews, e.forge.Requests())
	}
	if _, err := os.Stat(filepath.Join(e.data, "worktrees", "demo", "1")); !os.IsNotExist(err) {
		t.Fatalf("the worktree is still there: %v", err)
	}
	if l := e.landing(ref); l.PRState != board.PRMerged || l.Commit != merged.Commit || l.LandedAt.IsZero() {
		t.Fatalf("landing after merge %+v", l)
	}
}
