package heartbeat_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_DoneTicketsReviewIsForgotten: the runtime's review repository
// keeps each reviewed commit under a ref until its ticket is done (or
// deleted); the beat that removes a done ticket's worktree deletes its
// refs, and keeps those of a ticket still under review, though both were
// reviewed against the same default branch commit.
func TestBeat_DoneTicketsReviewIsForgotten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	e.project("demo", nil)
	done := e.ticket("demo", "Add one", board.InProgress, "it is there")
	kept := e.ticket("demo", "Add two", board.InProgress, "it is there")
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		shell(t, ctx, job, "echo x > f.txt && git add f.txt && git commit -q -m work")
		crit := []map[string]string{{"criterion": "it is there", "evidence": "f.txt"}}
		if r := call(t, ctx, job, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": crit}); r.IsError {
			t.Errorf("move to VERIFICATION: %s", r.Text())
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat() // one ticket of a project at a time
	e.beat()
	review := filepath.Join(e.data, "projects", ".review", "demo.git")
	refs := func() string {
		return gittest.Run(t, review, "for-each-ref", "--format=%(refname)", "refs/bonsai/")
	}
	before := refs()
	for _, tk := range []board.Ticket{done, kept} {
		if rv, err := e.db.Review(ctx, tk.Ref()); err != nil || rv.Tip == "" {
			t.Fatalf("review of %s = %+v, %v", tk.Ref(), rv, err)
		}
	}
	if _, err := e.db.MoveTicket(ctx, done.Ref(), board.MoveRequest{To: board.Done, Actor: board.Human}, "alice"); err != nil {
		t.Fatal(err)
	}
	if rep := e.beat(); rep.Removed != 1 {
		t.Fatalf("removed %d worktrees, want 1", rep.Removed)
	}
	after := refs()
	if strings.Contains(after, "/reviewed/"+strconv.Itoa(done.Number)+"/") {
		t.Errorf("the review refs of %s are kept:\n%s", done.Ref(), after)
	}
	if strings.Contains(after, "fetched/"+e.get(done.Ref()).Branch+"\n") {
		t.Errorf("the fetched branch of the done ticket is kept:\n%s", after)
	}
	rv, _ := e.db.Review(ctx, kept.Ref())
	for _, c := range []string{rv.Base, rv.Tip} {
		if !strings.Contains(after, "refs/bonsai/reviewed/"+strconv.Itoa(kept.Number)+"/"+c) {
			t.Errorf("the review of %s lost %s:\n%s\n(before:\n%s)", kept.Ref(), c, after, before)
		}
	}
}
