package forgesync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// The pull request of a ticket made from an issue of the repository's
// tracker closes that issue when it lands, the forge's way.
func TestPullRequestClosesTheLinkedIssue(t *testing.T) {
	e := newEnv(t, forge.GitHub)
	e.project()
	tk, _, err := e.db.CreateLinkedTicket(context.Background(), board.Ticket{ProjectSlug: "demo", Title: "Greet", Description: "Say hello",
		Criteria: []string{"hello.txt says hello"}, State: board.InProgress, Plan: "1. Do it."},
		board.IssueLink{Tracker: board.TrackerGitHub, IssueID: "9001", IssueRef: "101", URL: "https://github.com/acme/widget/issues/101", Status: board.IssueOpen})
	if err != nil {
		t.Fatal(err)
	}
	plain := e.ticket("Plain", board.InProgress, "hello.txt says hello")
	step := func(ctx context.Context, job heartbeat.Job) heartbeat.Outcome {
		commit(t, ctx, job, "hello.txt", "hello", "Add hello.txt")
		submit(t, ctx, job, "hello.txt holds hello")
		return heartbeat.Outcome{Status: board.RunCompleted}
	}
	e.runner.steps = append(e.runner.steps, step, step)
	e.beat()
	e.beat()
	bodies := map[string]string{}
	for _, pr := range e.forge.Pulls("acme", "widget") {
		bodies[pr.Head] = pr.Body
	}
	if b := bodies[e.get(tk.Ref()).Branch]; !strings.Contains(b, "Closes #101") {
		t.Errorf("the linked ticket's pull request body does not close its issue:\n%s", b)
	}
	if b := bodies[e.get(plain.Ref()).Branch]; b == "" || strings.Contains(b, "Closes #") {
		t.Errorf("the plain ticket's pull request body:\n%s", b)
	}
}
