package tickettool_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

func part(title string, criteria ...string) map[string]any {
	return map[string]any{"title": title, "description": "do " + title, "criteria": criteria}
}

// TestSplit: ticket_split is a research task's tool; it creates bounded
// sub-tickets with their criteria once, posts the split on the parent,
// and refuses what would break those rules without writing anything.
func TestSplit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlitetest.Open(ctx, filepath.Join(t.TempDir(), "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "demo", Repo: "/r", DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	parent, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Big", State: board.Research, Priority: 1}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	implement := tickettool.New(tickettool.Config{Board: db, Ref: parent.Ref(), Task: board.TaskImplement})
	for _, tl := range implement.Tools() {
		if tl.Name() == "ticket_split" {
			t.Error("ticket_split is among an implement task's tools")
		}
	}
	s := tickettool.New(tickettool.Config{Board: db, Ref: parent.Ref(), Task: board.TaskResearch, SplitState: board.Research})
	tooMany := make([]map[string]any, board.MaxSplit+1)
	for i := range tooMany {
		tooMany[i] = part("p", "c")
	}
	for _, c := range []struct {
		args any
		want string
	}{
		{map[string]any{"tickets": tooMany}, "give 1 to 10 sub-tickets, not 11"},
		{map[string]any{"tickets": []any{}}, "give 1 to 10 sub-tickets, not 0"},
		{map[string]any{"tickets": []any{part("no criteria")}}, "sub-ticket 1 needs a title and at least one acceptance criterion"},
		{map[string]any{"tickets": []any{part("  ", "c")}}, "sub-ticket 1 needs a title"},
		{map[string]any{"tickets": []any{part("x", "c")}, "extra": 1}, "invalid arguments for ticket_split"},
	} {
		r := run(t, s, "ticket_split", c.args)
		if !r.IsError || !strings.Contains(r.Text(), c.want) {
			t.Errorf("ticket_split(%v) = %q, want a refusal saying %q", c.args, r.Text(), c.want)
		}
	}
	if n, _ := db.CountTickets(ctx, store.TicketFilter{}); n != 1 {
		t.Fatalf("%d tickets after the refusals, want 1", n)
	}

	r := run(t, s, "ticket_split", map[string]any{"tickets": []any{part("One", "one works"), part("Two", "two works", "tests pass")}})
	if r.IsError || !strings.Contains(r.Text(), "Created demo#2, demo#3 as sub-tickets of demo#1, in RESEARCH") {
		t.Fatalf("ticket_split = %q", r.Text())
	}
	if e := s.Effects(); len(e.Split) != 2 || e.Split[1] != (board.Ref{Project: "demo", Number: 3}) {
		t.Errorf("Effects.Split = %v", e.Split)
	}
	two, err := db.Ticket(ctx, board.Ref{Project: "demo", Number: 3})
	if err != nil || two.State != board.Research || len(two.Criteria) != 2 || two.Priority != 1 ||
		!strings.HasPrefix(two.Description, "Part 2 of 2 of demo#1 (Big).") {
		t.Errorf("sub-ticket = %+v, %v", two, err)
	}
	cs, _ := db.Comments(ctx, parent.Ref())
	if len(cs) != 1 || cs[0].AuthorType != board.Agent || !strings.Contains(cs[0].Content, "Split demo#1 into 2 sub-tickets") {
		t.Errorf("comments on the parent = %+v", cs)
	}
	r = run(t, s, "ticket_split", map[string]any{"tickets": []any{part("Three", "c")}})
	if !r.IsError || !strings.Contains(r.Text(), "demo#1 already has sub-tickets (demo#2, demo#3); it is split once") {
		t.Errorf("a second split = %q", r.Text())
	}
	// A sub-ticket is not split again: an agent makes at most MaxSplit
	// tickets from one a person made.
	child := tickettool.New(tickettool.Config{Board: db, Ref: board.Ref{Project: "demo", Number: 2}, Task: board.TaskResearch})
	r = run(t, child, "ticket_split", map[string]any{"tickets": []any{part("Deeper", "c")}})
	if !r.IsError || !strings.Contains(r.Text(), "demo#2 is a sub-ticket of demo#1 and is not split again") {
		t.Errorf("splitting a sub-ticket = %q", r.Text())
	}
	// Out of RESEARCH: refused.
	if _, err := db.UpdateTicket(ctx, parent.Ref(), board.TicketPatch{Plan: ptr("the plan, saved")}, board.Agent); err != nil {
		t.Fatal(err)
	}
	if _, err := db.MoveTicket(ctx, parent.Ref(), board.MoveRequest{To: board.InProgress, Actor: board.Agent}, "bonsai"); err != nil {
		t.Fatal(err)
	}
	r = run(t, s, "ticket_split", map[string]any{"tickets": []any{part("Four", "c")}})
	if !r.IsError || !strings.Contains(r.Text(), "the ticket is in IN_PROGRESS; work is split in RESEARCH") {
		t.Errorf("a split in IN_PROGRESS = %q", r.Text())
	}
	if n, _ := db.CountTickets(ctx, store.TicketFilter{}); n != 3 {
		t.Errorf("%d tickets, want 3", n)
	}
}

func ptr[T any](v T) *T { return &v }
