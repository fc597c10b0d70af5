package heartbeat_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// TestMachines_MaxAgentsPerProject: three machines on one Postgres board,
// each allowed four agents, work two projects of six tickets whose
// max-agents is 2: every ticket runs exactly once, and no project ever
// has more than two runs at once across the machines.
func TestMachines_MaxAgentsPerProject(t *testing.T) {
	t.Parallel()
	u := pgtest.URL(t)
	const projects, tickets, maxAgents = 2, 6, 2
	machinesBoard(t, u, projects, tickets)
	setMaxAgents(t, u, maxAgents)
	spans, _ := runMachines(t, u, 3, 4, 0, 40*time.Millisecond)
	byProject := map[string][]span{}
	byTicket := map[string]int{}
	for _, s := range spans {
		byProject[s.project] = append(byProject[s.project], s)
		byTicket[s.ticket]++
	}
	if len(byTicket) != projects*tickets {
		t.Errorf("%d tickets worked, want %d", len(byTicket), projects*tickets)
	}
	for ref, n := range byTicket {
		if n != 1 {
			t.Errorf("%s ran %d times", ref, n)
		}
	}
	slugs := make([]string, 0, len(byProject))
	for p := range byProject {
		slugs = append(slugs, p)
	}
	sort.Strings(slugs)
	for _, p := range slugs {
		n := maxOverlap(byProject[p])
		if n > maxAgents {
			t.Errorf("project %s had %d runs at once across the machines, over its max-agents %d", p, n, maxAgents)
		}
		t.Logf("project %s: at most %d runs at once", p, n)
	}
}

// setMaxAgents sets every project's max-agents on the board at u.
func setMaxAgents(t *testing.T, u string, n int64) {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ps, err := db.Projects(ctx, store.ProjectFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if _, err := db.UpdateProject(ctx, p.Slug, board.ProjectPatch{Settings: map[string]any{"maxAgents": n}}); err != nil {
			t.Fatal(err)
		}
	}
}
