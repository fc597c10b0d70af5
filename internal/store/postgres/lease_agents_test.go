package postgres_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// TestLeaseRace_MaxAgents has eight workers, each with its own store
// (eight machines), race for every ticket of two projects whose agents
// work two and three tickets at once: each project ends with exactly its
// max-agents leases and no ticket is leased twice.
func TestLeaseRace_MaxAgents(t *testing.T) {
	ctx := t.Context()
	u := pgtest.URL(t)
	setup, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	max := map[string]int{"two": 2, "three": 3}
	var refs []board.Ref
	for slug, n := range max {
		p := board.Project{Slug: slug, Name: slug, Repo: "https://example.com/r.git", DefaultBranch: "main"}
		p.Agent.MaxAgents = int64(n)
		if _, err := setup.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		for range 6 {
			tk, err := setup.CreateTicket(ctx, board.Ticket{ProjectSlug: slug, Title: "t", State: board.Research}, board.Human)
			if err != nil {
				t.Fatal(err)
			}
			refs = append(refs, tk.Ref())
		}
	}
	var wg sync.WaitGroup
	for w := range 8 {
		db, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		wg.Go(func() {
			for i := range refs {
				ref := refs[(i+w)%len(refs)]
				_, err := db.AcquireLease(ctx, ref, fmt.Sprintf("host%d:1", w), time.Minute, 0)
				if err != nil && board.ErrorCode(err) != board.ECONFLICT {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	ls, err := setup.Leases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	perProject, tickets := map[string]int{}, map[board.Ref]int{}
	for _, l := range ls {
		perProject[l.Ref.Project]++
		tickets[l.Ref]++
	}
	for slug, n := range max {
		if perProject[slug] != n {
			t.Errorf("project %s holds %d leases, want its max-agents %d", slug, perProject[slug], n)
		}
	}
	for ref, n := range tickets {
		if n != 1 {
			t.Errorf("%s leased %d times", ref, n)
		}
	}
}
