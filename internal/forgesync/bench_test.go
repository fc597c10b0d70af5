package forgesync_test

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// idleWithPRs is an env on forge k with n tickets in VERIFICATION, each
// with an open pull request already read once.
func idleWithPRs(t testing.TB, k forge.Kind, n int, noETags bool) *env {
	e := newEnv(t, k)
	if noETags {
		e.forge.WithoutETags()
	}
	p := e.project()
	for i := 0; i < n; i++ {
		e.inReview(p, "Ticket "+itoa(i))
	}
	e.beat() // reads each pull request once and keeps its validators
	e.forge.ResetRequests()
	return e
}

// idleCost is what an idle beat asks of each open pull request: the pull
// request itself and, where it does not carry its checks, the head's
// checks (GitHub: check runs and commit statuses; Gitea: the combined
// status). GitLab's merge request carries its head pipeline.
var idleCost = map[forge.Kind]int{forge.GitHub: 3, forge.GitLab: 1, forge.Gitea: 2}

// checkIdle fails unless the beat made exactly idleCost requests per open
// pull request, each conditional and answered 304 (or, without ETags,
// read whole and found unchanged), and ran no agent.
func checkIdle(t testing.TB, e *env, rep heartbeat.Report, k forge.Kind, n int, noETags bool) {
	t.Helper()
	reqs := e.forge.Requests()
	if len(reqs) != n*idleCost[k] {
		t.Fatalf("%d requests for %d open pull requests; want %d each: %+v", len(reqs), n, idleCost[k], reqs)
	}
	for _, r := range reqs {
		if !noETags && (!r.Conditional || r.Status != 304) {
			t.Fatalf("request %+v; want a conditional one answered 304", r)
		}
	}
	if len(rep.Runs) != 0 || e.runner.runs() != 0 || rep.Reviews.Unchanged != n {
		t.Fatalf("runs %+v, agent runs %d, reviews %+v", rep.Runs, e.runner.runs(), rep.Reviews)
	}
	e.forge.ResetRequests()
}

func TestIdleBeat_ConditionalRequestsPerOpenPR(t *testing.T) {
	for _, k := range forge.Kinds() {
		t.Run(string(k), func(t *testing.T) {
			e := idleWithPRs(t, k, 5, false)
			checkIdle(t, e, e.beat(), k, 5, false)
			checkIdle(t, e, e.beat(), k, 5, false)
		})
	}
}

// Issue 27, item 9: a new issue changes open_issues_count inside every
// pull request's embedded repository, and so its ETag and its body;
// the pull request is still unchanged for the sync, which reads no
// reviews.
func TestIdleBeat_UnrelatedRepositoryActivityCostsNothingMore(t *testing.T) {
	for _, noETags := range []bool{true, false} {
		name := "etags"
		if noETags {
			name = "no-etags"
		}
		t.Run(name, func(t *testing.T) {
			e := idleWithPRs(t, forge.Gitea, 3, noETags)
			e.forge.RepoActivity("acme", "widget")
			rep := e.beat()
			if reqs := e.forge.Requests(); len(reqs) != 3*idleCost[forge.Gitea] || rep.Reviews.Unchanged != 3 {
				t.Fatalf("after unrelated activity: %d requests for 3 pull requests, reviews %+v: %+v", len(reqs), rep.Reviews, reqs)
			}
			e.forge.ResetRequests()
			checkIdle(t, e, e.beat(), forge.Gitea, 3, noETags)
		})
	}
}

// BenchmarkIdleBeat20PRs is a beat with 20 open pull requests on GitHub
// and nothing to do: 60 conditional requests answered 304 (each pull
// request and its head's check runs and statuses), no model call.
func BenchmarkIdleBeat20PRs(b *testing.B) {
	e := idleWithPRs(b, forge.GitHub, 20, false)
	for b.Loop() {
		checkIdle(b, e, e.beat(), forge.GitHub, 20, false)
	}
	b.ReportMetric(60, "requests/op")
}
