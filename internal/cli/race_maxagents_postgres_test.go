package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
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
	u := pgtest.OwnURL(t)
	ctx := context.Background()
	srv := forgetest.New(t, forge.GitHub)
	db, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for p := range projects {
		slug := fmt.Sprintf("m%d", p)
		remote := srv.GitRepo(t, "acme", slug, map[string]string{"README.md": "# " + slug + "\n"})
		_, err := db.CreateProject(ctx, board.Project{Slug: slug, Name: slug, Repo: remote, DefaultBranch: "main", Active: true,
			Agent: board.AgentSettings{Sandbox: board.SandboxOff, MaxAgents: maxAgents}})
		if err != nil {
			t.Fatal(err)
		}
		for n := range tickets {
			_, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: slug, Title: "Ticket " + strconv.Itoa(n+1),
				State: board.InProgress, Criteria: []string{"done.txt exists"}}, board.Human)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	turns := make([]llmtest.ServerTurn, projects*tickets)
	for i := range turns {
		turns[i] = raceTurn
	}
	model := llmtest.NewServer(t, turns...)
	machines := make([]*raceMachine, raceMachines)
	for i := range machines {
		m := &raceMachine{name: fmt.Sprintf("m%d", i+1), dir: t.TempDir()}
		m.env = append(raceEnv(),
			"BONSAI_DATA_DIR="+filepath.Join(m.dir, "data"), "HOME="+filepath.Join(m.dir, "home"),
			"BONSAI_DATABASE_URL="+u, "ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=test-key")
		if err := os.MkdirAll(filepath.Join(m.dir, "home"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := m.bonsai(ctx, "config", "set", "heartbeat.maxConcurrentAgents", strconv.Itoa(raceLimit)); err != nil {
			t.Fatal(err)
		}
		if _, err := m.bonsai(ctx, "config", "set", "heartbeat.intervalSec", "10"); err != nil {
			t.Fatal(err)
		}
		machines[i] = m
	}
	ctx, cancel := context.WithTimeout(ctx, 8*time.Minute)
	defer cancel()
	for _, m := range machines {
		if err := m.startWorker(ctx); err != nil {
			t.Fatal(err)
		}
	}
	err = waitRaceDone(ctx, db)
	for _, m := range machines {
		if serr := m.stopWorker(); serr != nil {
			t.Errorf("%s: %v", m.name, serr)
		}
	}
	if err != nil {
		for _, m := range machines {
			t.Logf("%s's worker said:\n%s", m.name, m.out.String())
		}
		t.Fatal(err)
	}
	checkMaxAgentsBoard(t, db, projects*tickets, maxAgents)
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
