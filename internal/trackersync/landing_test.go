package trackersync_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/forgesync"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/land"
)

// TestCycleLandsAndClosesTheIssue is the whole cycle on GitHub in the pr
// landing mode: the labelled issue becomes a ticket, the agent asks, the
// question is on the issue, a maintainer answers there, the ticket
// unblocks, the agent plans (the plan is on the issue) and does the work, the pull request says
// Closes #101, approving merges it, the forge closes the issue, and the
// next beat leaves the DONE ticket alone.
func TestCycleLandsAndClosesTheIssue(t *testing.T) {
	t.Parallel()
	for _, k := range []forge.Kind{forge.GitHub, forge.GitLab, forge.Gitea} {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			cycleLandsAndClosesTheIssue(t, k)
		})
	}
}

// cycleLandsAndClosesTheIssue runs the cycle on forge k, through landing:
// the pull request closes the issue the forge's way.
func cycleLandsAndClosesTheIssue(t *testing.T, k forge.Kind) {
	srv := forgetest.New(t, k)
	if k == forge.Gitea {
		// The tracker's scopes (docs/trackers.md) and the landing's.
		srv.SetScopes("write:issue", "write:repository")
	}
	repo := srv.GitRepo(t, "acme", "widget", map[string]string{"README.md": "# widget\n"})
	hosts := map[string]forge.Host{srv.Host(): {Kind: k}}
	vars := map[string]string{}
	for _, v := range forge.TokenEnv(k) {
		vars[v] = forgetest.Token
	}
	e := newEnv(t, hosts, vars)
	fs := forgesync.New(forgesync.Options{Board: e.db, Hosts: hosts, Getenv: func(v string) string { return vars[v] }})
	e.prs = fs
	e.project("demo", repo, board.AgentSettings{Tracker: board.TrackerKind(k), TrackerLabels: []string{"bonsai"}, Land: board.LandPR})
	n := srv.OpenIssue("acme", "widget", "acme", "Greet the world", "Say hello.\n\n- [ ] hello.txt says hello", "bonsai")
	e.runner.steps = append(e.runner.steps, ask(t, "Which greeting?"),
		func(ctx context.Context, job heartbeat.Job) heartbeat.Outcome {
			call(t, ctx, job, "ticket_plan", map[string]any{"plan": "1. Write hello.txt."})
			call(t, ctx, job, "ticket_move", map[string]any{"to": "IN_PROGRESS"})
			return heartbeat.Outcome{Status: board.RunCompleted}
		},
		func(ctx context.Context, job heartbeat.Job) heartbeat.Outcome {
			var out strings.Builder
			script := "printf 'Hello, world.' > hello.txt && git add hello.txt && git -c user.name=agent -c user.email=agent@example.invalid commit -qm 'Add hello.txt'"
			if exit, err := job.Workspace.Exec.Shell(ctx, script, executor.RunOptions{Output: &out}); err != nil || exit.Code != 0 {
				t.Fatalf("commit: %v %d %s", err, exit.Code, out.String())
			}
			call(t, ctx, job, "ticket_move", map[string]any{"to": "VERIFICATION",
				"criteria": []map[string]string{{"criterion": "hello.txt says hello", "evidence": "hello.txt holds Hello, world."}}})
			return heartbeat.Outcome{Status: board.RunCompleted}
		})
	tk := board.Ref{Project: "demo", Number: 1}

	if rep := e.beat(); len(rep.Trackers.Failures) > 0 { // the ticket, the question
		t.Fatalf("first beat: %+v", rep.Trackers)
	}
	if cs := srv.Issue("acme", "widget", n).Comments; len(cs) != 1 || !strings.Contains(cs[0].Body, "Which greeting?") {
		t.Fatalf("the issue's comments: %+v", cs)
	}
	srv.CommentIssue("acme", "widget", n, "carol", "Hello, world.")
	e.beat() // the answer unblocks it; the agent plans
	e.beat() // the agent does the work; the pull request opens
	if st := e.get(tk).State; st != board.Verification {
		t.Fatalf("ticket %s; want VERIFICATION", st)
	}
	if labels := srv.Issue("acme", "widget", n).Labels; !slices.Contains(labels, "bonsai:verification") || slices.Contains(labels, "bonsai:research") ||
		!slices.Contains(labels, "bonsai") {
		t.Errorf("the issue's labels in VERIFICATION: %q", labels)
	}
	plans := 0
	for _, c := range srv.Issue("acme", "widget", n).Comments {
		if strings.Contains(c.Body, "**Bonsai's agent** plans") && strings.Contains(c.Body, "1. Write hello.txt.") {
			plans++
		}
	}
	if plans != 1 {
		t.Errorf("the plan is on the issue %d times; want once", plans)
	}
	prs := srv.Pulls("acme", "widget")
	if len(prs) != 1 || !strings.Contains(prs[0].Body, "Closes #101") {
		t.Fatalf("pull requests %+v", prs)
	}
	lander := land.New(land.Options{Store: e.db, Git: e.ws, PullRequests: fs})
	res, err := lander.Approve(context.Background(), land.Approval{Ref: tk, Author: "alice", Person: land.Person{Name: "Alice", Email: "alice@example.com"}})
	if err != nil || res.Outcome != land.Landed {
		t.Fatalf("approve: %+v, %v", res, err)
	}
	if !srv.Issue("acme", "widget", n).Closed {
		t.Fatal("merging the pull request did not close the issue")
	}
	rep := e.beat()
	l, _ := e.db.IssueLink(context.Background(), tk)
	if l.Status != board.IssueClosed || e.get(tk).State != board.Done || rep.Trackers.Closed != 0 {
		t.Fatalf("after landing: link %+v, ticket %s, trackers %+v", l, e.get(tk).State, rep.Trackers)
	}
	for _, c := range e.comments(tk) {
		if strings.Contains(c.Content, "by hand") {
			t.Errorf("a landed ticket was told its issue was closed by hand: %q", c.Content)
		}
	}
	if e.runner.runs() != 3 {
		t.Errorf("%d agent runs; want 3", e.runner.runs())
	}
}
