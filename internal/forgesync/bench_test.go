package forgesync_test

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// idleWithPRs is an env with n tickets in VERIFICATION, each with an open
// pull request already read once.
func idleWithPRs(t testing.TB, n int) *env {
	e := newEnv(t, forge.GitHub)
	p := e.project()
	for i := 0; i < n; i++ {
		e.inReview(p, "Ticket "+itoa(i))
	}
	e.beat() // reads each pull request once and keeps its ETag
	e.forge.ResetRequests()
	return e
}

// checkIdle fails unless the beat made exactly one conditional request
// per open pull request, each answered 304, and ran no agent.
func checkIdle(t testing.TB, e *env, rep heartbeat.Report, n int) {
	t.Helper()
	reqs := e.forge.Requests()
	if len(reqs) != n {
		t.Fatalf("%d requests for %d open pull requests", len(reqs), n)
	}
	for _, r := range reqs {
		if !r.Conditional || r.Status != 304 {
			t.Fatalf("request %+v; want a conditional one answered 304", r)
		}
	}
	if len(rep.Runs) != 0 || e.runner.runs() != 0 || rep.Reviews.Unchanged != n {
		t.Fatalf("runs %+v, agent runs %d, reviews %+v", rep.Runs, e.runner.runs(), rep.Reviews)
	}
	e.forge.ResetRequests()
}

func TestIdleBeat_OneConditionalRequestPerOpenPR(t *testing.T) {
	e := idleWithPRs(t, 20)
	checkIdle(t, e, e.beat(), 20)
	checkIdle(t, e, e.beat(), 20)
}

// BenchmarkIdleBeat20PRs is a beat with 20 open pull requests and nothing
// to do: 20 conditional requests answered 304, no model call.
func BenchmarkIdleBeat20PRs(b *testing.B) {
	e := idleWithPRs(b, 20)
	for b.Loop() {
		checkIdle(b, e, e.beat(), 20)
	}
	b.ReportMetric(20, "requests/op")
}
