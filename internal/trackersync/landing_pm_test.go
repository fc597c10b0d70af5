package trackersync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/land"
)

// TestLandingMovesTheIssueToDone is the end of the cycle on Linear and
// Jira, where no pull request can close the issue: the work lands (a
// merge into the project's repository), the ticket is DONE, and the next
// beat moves the issue to its Done state, once.
func TestLandingMovesTheIssueToDone(t *testing.T) {
	for _, kind := range []string{"linear", "jira"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := fakes(t, kind)
			e := newEnv(t, f.hosts, f.env)
			f.settings.Land = board.LandMerge
			e.project("demo", f.repo, f.settings)
			ref := f.open("Greet the world", "Say hello.\n\n- [ ] hello.txt says hello")
			e.runner.steps = append(e.runner.steps,
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
			e.beat() // the ticket; the agent plans
			e.beat() // the agent does the work
			if st := e.get(tk).State; st != board.Verification {
				t.Fatalf("ticket %s; want VERIFICATION", st)
			}
			if st := f.state(ref); st != "In Review" {
				t.Errorf("the issue in VERIFICATION is %q; want In Review", st)
			}
			lander := land.New(land.Options{Store: e.db, Git: e.ws})
			res, err := lander.Approve(context.Background(), land.Approval{Ref: tk, Author: "alice", Person: land.Person{Name: "Alice", Email: "alice@example.com"}})
			if err != nil || res.Outcome != land.Landed {
				t.Fatalf("approve: %+v, %v", res, err)
			}
			rep := e.beat()
			if st := f.state(ref); st != "Done" || len(rep.Trackers.Failures) != 0 || len(rep.Runs) != 0 {
				t.Fatalf("after landing: the issue is %q (want Done), trackers %+v, runs %+v", st, rep.Trackers, rep.Runs)
			}
			for _, c := range e.comments(tk) {
				if strings.Contains(c.Content, "by hand") {
					t.Errorf("a landed ticket was told its issue was closed by hand: %q", c.Content)
				}
			}
			if rep = e.beat(); e.get(tk).State != board.Done || len(rep.Runs) != 0 || rep.Trackers.Closed != 0 {
				t.Errorf("the beat after: ticket %s, runs %+v, trackers %+v", e.get(tk).State, rep.Runs, rep.Trackers)
			}
		})
	}
}
