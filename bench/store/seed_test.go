package storebench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// TestSeed checks, through the store, that a seeded board is one the store
// could have written: numbers 1..N, a working counter, a realistic mix of
// states, and picks that agree with board.PickTicket.
func TestSeed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	const projects, tickets = 4, 300
	if err := Seed(ctx, path, Board{Projects: projects, Tickets: tickets, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	ps, err := db.Projects(ctx, store.ProjectFilter{})
	if err != nil || len(ps) != projects {
		t.Fatalf("Projects = %d, %v; want %d", len(ps), err, projects)
	}
	states := map[board.State]int{}
	want := map[string]string{}
	for _, p := range ps {
		ts, err := db.Tickets(ctx, store.TicketFilter{ProjectSlug: p.Slug})
		if err != nil {
			t.Fatal(err)
		}
		var cands []board.Candidate
		for i, tk := range ts {
			if tk.Number != i+1 {
				t.Fatalf("%s: ticket %d has number %d", p.Slug, i, tk.Number)
			}
			if err := tk.Validate(); err != nil {
				t.Fatalf("%s: %v", tk.Ref(), err)
			}
			states[tk.State]++
			c := board.Candidate{Ticket: tk}
			cs, err := db.Comments(ctx, tk.Ref())
			if err != nil {
				t.Fatal(err)
			}
			for _, cm := range cs {
				if cm.AuthorType == board.Human && !cm.Resolved && cm.CreatedAt.After(c.LastHumanComment) {
					c.LastHumanComment = cm.CreatedAt
				}
			}
			cands = append(cands, c)
		}
		if pk, ok := board.PickTicket(cands, p.Agent.TakeBacklog); ok {
			want[p.Slug] = pk.Ticket.Ref().String() + " " + pk.Class.String()
		}
		tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: p.Slug, Title: "next"}, board.Human)
		if err != nil || tk.Number != tickets+1 {
			t.Fatalf("next ticket of %s = #%d, %v; want #%d", p.Slug, tk.Number, err, tickets+1)
		}
	}
	total := projects * tickets
	if states[board.Done] < total/2 || states[board.InProgress] == 0 || states[board.Research] == 0 {
		t.Errorf("states = %v; want mostly DONE and some in flight", states)
	}

	picks, err := db.Pick(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, pk := range picks {
		got[pk.Ticket.ProjectSlug] = pk.Ticket.Ref().String() + " " + pk.Class.String()
	}
	if len(got) != len(want) {
		t.Fatalf("Pick = %v, policy %v", got, want)
	}
	for slug, w := range want {
		if got[slug] != w {
			t.Errorf("Pick for %s = %s, policy %s", slug, got[slug], w)
		}
	}
	runs, err := db.RecentRuns(ctx, 5)
	if err != nil || len(runs) != 5 {
		t.Errorf("RecentRuns = %d, %v; want 5", len(runs), err)
	}
}
