package postgres_test

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// leaseRace is the lease race of TestLeaseRace and TestLeaseRace_MaxAgents:
// eight workers, each with its own store (eight machines), race for every
// ticket of the projects, each worker from a different ticket on, with
// limit (0: none) as the cap on all the workers' leases together.
// maxAgents gives each project's max-agents (0: the default) and
// tickets the RESEARCH tickets of each. It checks what holds for any
// race: no ticket leased twice, no project over its max-agents, and
// every acquisition that succeeded holding a lease; it returns how many
// leases each project holds after the race.
func leaseRace(t *testing.T, maxAgents map[string]int, tickets, limit int) map[string]int {
	t.Helper()
	ctx := t.Context()
	u := pgtest.URL(t)
	setup, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	slugs := make([]string, 0, len(maxAgents))
	for slug := range maxAgents {
		slugs = append(slugs, slug)
	}
	sort.Strings(slugs)
	var refs []board.Ref
	for _, slug := range slugs {
		p := board.Project{Slug: slug, Name: slug, Repo: "https://example.com/r.git", DefaultBranch: "main"}
		p.Agent.MaxAgents = int64(maxAgents[slug])
		if _, err := setup.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		for range tickets {
			tk, err := setup.CreateTicket(ctx, board.Ticket{ProjectSlug: slug, Title: "t", State: board.Research}, board.Human)
			if err != nil {
				t.Fatal(err)
			}
			refs = append(refs, tk.Ref())
		}
	}
	var mu sync.Mutex
	won := 0
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
				_, err := db.AcquireLease(ctx, ref, fmt.Sprintf("host%d:1", w), time.Minute, limit)
				switch board.ErrorCode(err) {
				case "":
					mu.Lock()
					won++
					mu.Unlock()
				case board.ECONFLICT:
				default:
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
	perProject, perTicket := map[string]int{}, map[board.Ref]int{}
	for _, l := range ls {
		perProject[l.Ref.Project]++
		perTicket[l.Ref]++
	}
	for ref, n := range perTicket {
		if n != 1 {
			t.Errorf("%s leased %d times", ref, n)
		}
	}
	for slug, n := range perProject {
		if most := max(maxAgents[slug], board.DefaultMaxAgents); n > most {
			t.Errorf("project %s holds %d leases, over its max-agents %d", slug, n, most)
		}
	}
	if won != len(ls) {
		t.Errorf("%d acquisitions succeeded, but %d leases are held", won, len(ls))
	}
	return perProject
}
