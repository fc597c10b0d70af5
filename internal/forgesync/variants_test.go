package forgesync_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/land"
)

// TestVariants_ClosedOnTheForge: a ticket run three ways in pr mode gets
// a pull request for each variant. Approving one merges its pull
// request; the others' are closed on the forge, unmerged, their branches
// deleted from the forge's repository, and no later beat follows them
// (nor blocks their DONE tickets as "closed without being merged").
func TestVariants_ClosedOnTheForge(t *testing.T) {
	for _, k := range forge.Kinds() {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e := newEnv(t, k)
			e.project()
			tk := e.ticket("Greet", board.InProgress, "the readme greets")
			specs := []board.VariantSpec{{Engine: board.EngineBonsai, Model: "fake/one"}, {Engine: board.EngineBonsai, Model: "fake/two"}, {Engine: board.EngineBonsai, Model: "fake/three"}}
			vs, err := heartbeat.CreateVariants(ctx, e.db, heartbeat.VariantRequest{Ref: tk.Ref(), Specs: specs, MaxConcurrent: 3,
				Now: time.Now(), Actor: board.Human, Author: "ann"})
			if err != nil {
				t.Fatal(err)
			}
			for range vs {
				e.runner.steps = append(e.runner.steps, func(ctx context.Context, job heartbeat.Job) heartbeat.Outcome {
					commit(t, ctx, job, "greeting.txt", "hello from "+job.Model, "greet")
					submit(t, ctx, job, "it says hello from "+job.Model)
					return heartbeat.Outcome{Status: board.RunCompleted}
				})
			}
			for i := 0; i < 6 && e.runner.runs() < len(vs); i++ {
				e.beat()
			}
			prs := map[board.Ref]int{}
			for _, v := range vs {
				l := e.landing(v.Ref)
				if l.PRNumber == 0 || l.PRState != board.PROpen {
					t.Fatalf("%s's landing = %+v, want an open pull request", v.Ref, l)
				}
				prs[v.Ref] = l.PRNumber
			}
			bare := e.forge.BareDir("acme", "widget")
			lander := land.New(land.Options{Store: e.db, Git: e.ws, PullRequests: e.forges})
			res, err := lander.Approve(ctx, land.Approval{Ref: vs[1].Ref, Author: "alice", Person: land.Person{Name: "Alice", Email: "alice@example.com"}})
			if err != nil || res.Outcome != land.Landed {
				t.Fatalf("approve variant 2: %+v, %v", res, err)
			}
			if got := e.forge.PR("acme", "widget", prs[vs[1].Ref]); got.State != forge.Merged {
				t.Errorf("the chosen variant's pull request is %s, want merged", got.State)
			}
			branches := gittest.Run(t, bare, "for-each-ref", "--format=%(refname:short)", "refs/heads/")
			for _, i := range []int{0, 2} {
				v := vs[i]
				if got := e.forge.PR("acme", "widget", prs[v.Ref]); got.State != forge.Closed {
					t.Errorf("variant %d's pull request is %s on the forge, want closed", v.Number, got.State)
				}
				if l := e.landing(v.Ref); l.PRState != board.PRClosed {
					t.Errorf("variant %d's landing says %s, want closed", v.Number, l.PRState)
				}
				if b := e.get(v.Ref).Branch; strings.Contains(branches, b) {
					t.Errorf("variant %d's branch %s is still on the forge: %q", v.Number, b, branches)
				}
			}
			if !strings.Contains(res.Message, "closed on") {
				t.Errorf("the approval says %q, want it to name the pull requests it closed", res.Message)
			}
			rep, err := e.forges.SyncReviews(ctx, "demo")
			if err != nil || rep.Open != 0 || rep.Closed != 0 {
				t.Errorf("a sync after the approval = %+v, %v; want no pull request followed", rep, err)
			}
			for _, v := range vs {
				if got := e.get(v.Ref); got.State != board.Done || countContaining(t, e, v.Ref, "without being merged") != 0 {
					t.Errorf("%s is %s after the approval, want DONE and no question about its pull request", v.Ref, got.State)
				}
			}
		})
	}
}
