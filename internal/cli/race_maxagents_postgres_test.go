package cli_test

import (
	"context"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// TestRace_WorkerProcessesMaxAgents: three machines, as separate `bonsai
// worker` processes with separate data directories, work two projects of
// eight tickets whose max-agents is 3 (issue 31) on one Postgres board:
// every ticket is worked once, never two runs of a ticket at once, and
// never more than three runs of a project at once across the machines,
// as the runs table records them.
func TestRace_WorkerProcessesMaxAgents(t *testing.T) {
	t.Parallel()
	const projects, tickets, maxAgents = 2, 8, 3
	r := runWorkerRace(t, workerRace{slug: "m%d", projects: projects, tickets: tickets, maxAgents: maxAgents, limit: 8 * time.Minute})
	checkMaxAgentsBoard(t, r.db, projects*tickets, maxAgents)
}

// checkMaxAgentsBoard checks that every ticket reached VERIFICATION after
// one completed run, no ticket had two runs at once and no project more
// than maxAgents.
func checkMaxAgentsBoard(t *testing.T, db store.Store, want, maxAgents int) {
	t.Helper()
	ctx := context.Background()
	ts, err := db.Tickets(ctx, store.TicketFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range ts {
		if tk.State != board.Verification {
			t.Errorf("%s is %s, want VERIFICATION", tk.Ref(), tk.State)
		}
	}
	runs, err := db.RecentRuns(ctx, 10*want)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != want || len(runs) != want {
		t.Errorf("%d tickets and %d runs, want %d of each", len(ts), len(runs), want)
	}
	byTicket, byProject := map[string][]board.Run{}, map[string][]board.Run{}
	for _, r := range runs {
		if r.Status != board.RunCompleted || r.FinishedAt == nil {
			t.Errorf("run %s is %s: %s", r.ID, r.Status, r.Error)
			continue
		}
		ref := board.Ref{Project: r.ProjectSlug, Number: r.TicketNumber}.String()
		byTicket[ref] = append(byTicket[ref], r)
		byProject[r.ProjectSlug] = append(byProject[r.ProjectSlug], r)
	}
	for ref, rs := range byTicket {
		if len(rs) != 1 {
			t.Errorf("%s ran %d times", ref, len(rs))
		}
	}
	for p, rs := range byProject {
		n := mostAtOnce(rs)
		if n > maxAgents {
			t.Errorf("project %s had %d runs at once across the machines, over its max-agents %d", p, n, maxAgents)
		}
		t.Logf("project %s: at most %d runs at once", p, n)
	}
}
