package web

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// TestPages_NotRunAndRunErrors: a ticket the last beat skipped says why,
// on the ticket page; a failed run shows its error; every page carries
// the banner of the project's blocker and the projects page marks it.
func TestPages_NotRunAndRunErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Waiting", board.Research)
	ctx := context.Background()
	run, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskResearch, WorkerID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	run.Status, run.Error = board.RunError, "anthropic: the server is overloaded"
	if _, err := e.db.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	e.srv.opts.Facts = func() view.AgentFacts {
		return view.AgentFacts{Skips: []view.Skip{{Ticket: "demo#1", Reason: "project demo: daily USD budget is used up ($5.00 spent of $5.00); it resets at midnight"}}}
	}
	c := e.browser(t)
	r := e.get(t, c, "/p/demo/1")
	wantStatus(t, r, 200)
	wantBody(t, r, `id="not-run"`, "the last beat did not run it: project demo: daily USD budget is used up",
		`class="run-error"`, "anthropic: the server is overloaded",
		`id="blockers"`, "Daily budget reached", "raise the project&#39;s daily budget")
	r = e.get(t, c, "/")
	wantBody(t, r, `id="blockers"`, `class="badge blocked project-blocked"`)

	// Without a skip nor a blocker, nothing is said.
	e.srv.opts.Facts = nil
	e.srv.blocked.forget()
	r = e.get(t, c, "/p/demo/1")
	for _, no := range []string{`id="not-run"`, `id="blockers"`} {
		if strings.Contains(r.body, no) {
			t.Errorf("%s shown with nothing stopping the agents", no)
		}
	}
}

// Issue 27, item 6: a pull request the last beat could not follow is in
// the banner of every page, which then does not say agents cannot run,
// and the project is not marked blocked.
func TestPages_UnfollowedPullRequestInTheBanner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.srv.opts.Facts = func() view.AgentFacts {
		return view.AgentFacts{Unfollowed: []view.Skip{{Ticket: "demo#1", Reason: "gitea: read reviews of pull request #1: 403 Forbidden (token does not have at least one of required scope(s), required=[read:issue])"}}}
	}
	c := e.browser(t)
	r := e.get(t, c, "/")
	wantStatus(t, r, 200)
	wantBody(t, r, `id="blockers"`, "Pull requests or issues are not followed.", "Bonsai cannot follow the pull requests of demo#1", "required=[read:issue]", "bonsai doctor")
	for _, no := range []string{"Agents cannot run.", `class="badge blocked project-blocked"`} {
		if strings.Contains(r.body, no) {
			t.Errorf("%s shown when only a pull request is not followed", no)
		}
	}
}

// Issue 29: a project whose tracker failed to sync is in the banner of
// every page with the stored failure and its count, which then does not
// say agents cannot run; a sync that recovered leaves the banner.
func TestPages_FailedTrackerSyncInTheBanner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: t.TempDir(), DefaultBranch: "main", Active: true,
		Agent: board.AgentSettings{Tracker: board.TrackerGitHub, TrackerLabels: []string{"bonsai"}}})
	if err != nil {
		t.Fatal(err)
	}
	failed := board.TrackerSync{ProjectSlug: "demo", Tracker: board.TrackerGitHub, Error: "github: list issues: 401 Bad credentials", Failures: 3}
	if _, err := e.db.SaveTrackerSync(ctx, failed); err != nil {
		t.Fatal(err)
	}
	c := e.browser(t)
	r := e.get(t, c, "/")
	wantStatus(t, r, 200)
	wantBody(t, r, `id="blockers"`, "Pull requests or issues are not followed.", `data-kind="tracker"`,
		"The github tracker of demo failed to sync 3 times in a row: github: list issues: 401 Bad credentials", "bonsai doctor")
	if strings.Contains(r.body, "Agents cannot run.") {
		t.Error("a failing tracker said agents cannot run")
	}

	failed.Error, failed.Failures = "", 0
	if _, err := e.db.SaveTrackerSync(ctx, failed); err != nil {
		t.Fatal(err)
	}
	e.srv.blocked.forget()
	if r := e.get(t, c, "/"); strings.Contains(r.body, `data-kind="tracker"`) {
		t.Error("a tracker that synced again is still in the banner")
	}
}
