package heartbeat_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// span is one run as the fake model saw it.
type span struct {
	project, ticket string
	worker          string
	start, end      time.Time
}

// machinesBoard fills a Postgres board with projects × tickets, each
// ticket IN_PROGRESS, every project on its own git repository.
func machinesBoard(t testing.TB, u string, projects, tickets int) {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	repos := t.TempDir()
	for p := range projects {
		slug := fmt.Sprintf("p%02d", p)
		repo := filepath.Join(repos, slug)
		if err := gittest.Init(repo, map[string]string{"README.md": "# " + slug + "\n"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateProject(ctx, board.Project{Slug: slug, Name: slug, Repo: repo, DefaultBranch: "main"}); err != nil {
			t.Fatal(err)
		}
		for n := range tickets {
			_, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: slug, Title: "t" + strconv.Itoa(n), State: board.InProgress}, board.Human)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// runMachines runs `machines` heartbeats, each as a machine of its own
// (its data directory, lock, clones, store connections and worker ID), on
// the board at u until no ticket is IN_PROGRESS. Each run's fake model
// answers after think, then the agent moves its ticket to VERIFICATION.
// global is each machine's GlobalLimit (0: none).
func runMachines(t testing.TB, u string, machines, concurrent, global int, think time.Duration) ([]span, time.Duration) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var spans []span
	var wg sync.WaitGroup
	// Every machine is opened (its store, which waits for the schema's
	// lock while other tests migrate theirs on the shared cluster) before
	// any beats: one opened early would work the board alone.
	var beats []func()
	start := time.Now()
	for m := range machines {
		db, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		data := t.TempDir()
		ws, err := workspace.New(workspace.Options{
			Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
			Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
		})
		if err != nil {
			t.Fatal(err)
		}
		worker := fmt.Sprintf("machine%d:%d", m, os.Getpid())
		runner := &fakeRunner{run: func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
			s := span{project: job.Ticket.ProjectSlug, ticket: job.Ticket.Ref().String(), worker: worker, start: time.Now()}
			select {
			case <-time.After(think):
			case <-ctx.Done():
				return heartbeat.Outcome{Status: board.RunError, Error: "cancelled"}, nil
			}
			_, err := db.MoveTicket(ctx, job.Ticket.Ref(), board.MoveRequest{To: board.Verification, Actor: board.Agent}, "bonsai")
			s.end = time.Now()
			mu.Lock()
			spans = append(spans, s)
			mu.Unlock()
			if err != nil {
				return heartbeat.Outcome{Status: board.RunError, Error: err.Error()}, nil
			}
			return heartbeat.Outcome{Status: board.RunCompleted}, nil
		}}
		hb, err := heartbeat.New(heartbeat.Options{
			Store: db, Workspaces: ws, Runner: runner, Leases: db, WorkerID: worker,
			LockFile: filepath.Join(data, "heartbeat.lock"), StateFile: filepath.Join(data, "heartbeat.json"),
			Sessions: filepath.Join(data, "sessions"), DefaultModel: "anthropic/claude-sonnet-4-5",
			MaxConcurrent: concurrent, GlobalLimit: global, MaxDuration: 5 * time.Minute, Reap: local.KillMarked,
		})
		if err != nil {
			t.Fatal(err)
		}
		beats = append(beats, func() {
			for {
				if _, err := hb.Beat(ctx); err != nil {
					t.Error(err)
					return
				}
				n, err := db.CountTickets(ctx, store.TicketFilter{State: board.InProgress})
				if err != nil {
					t.Error(err)
					return
				}
				if n == 0 {
					return
				}
			}
		})
	}
	for _, beat := range beats {
		wg.Go(beat)
	}
	wg.Wait()
	return spans, time.Since(start)
}

// checkSpans fails t when a ticket ran other than once, or two runs of a
// project overlapped (one agent per project, across machines).
func checkSpans(t testing.TB, spans []span, tickets int) {
	t.Helper()
	byTicket := map[string]int{}
	byProject := map[string][]span{}
	for _, s := range spans {
		byTicket[s.ticket]++
		byProject[s.project] = append(byProject[s.project], s)
	}
	if len(byTicket) != tickets {
		t.Errorf("%d tickets worked, want %d", len(byTicket), tickets)
	}
	for ref, n := range byTicket {
		if n != 1 {
			t.Errorf("%s ran %d times", ref, n)
		}
	}
	for p, ss := range byProject {
		sort.Slice(ss, func(i, j int) bool { return ss[i].start.Before(ss[j].start) })
		for i := 1; i < len(ss); i++ {
			if ss[i].start.Before(ss[i-1].end) {
				t.Errorf("project %s: %s (%s) started before %s (%s) ended", p, ss[i].ticket, ss[i].worker, ss[i-1].ticket, ss[i-1].worker)
			}
		}
	}
}

// TestMachines_OneAgentPerProject: three machines on one Postgres board
// work every ticket exactly once, never two agents in a project at once.
func TestMachines_OneAgentPerProject(t *testing.T) {
	t.Parallel()
	u := pgtest.URL(t)
	const projects, tickets = 6, 3
	machinesBoard(t, u, projects, tickets)
	spans, _ := runMachines(t, u, 3, 2, 0, 20*time.Millisecond)
	checkSpans(t, spans, projects*tickets)
	workers := map[string]bool{}
	for _, s := range spans {
		workers[s.worker] = true
	}
	if len(workers) < 2 {
		t.Errorf("only %d machine(s) worked: the test does not show them sharing", len(workers))
	}
}

// TestMachines_GlobalLimit: two machines that may each run three agents,
// with a global limit of two, never have more than two agents running at
// once between them, and still work every ticket once.
func TestMachines_GlobalLimit(t *testing.T) {
	t.Parallel()
	u := pgtest.URL(t)
	const projects, tickets = 6, 2
	machinesBoard(t, u, projects, tickets)
	spans, _ := runMachines(t, u, 2, 3, 2, 30*time.Millisecond)
	checkSpans(t, spans, projects*tickets)
	if n := maxOverlap(spans); n > 2 {
		t.Errorf("%d agents ran at once across the machines, over the global limit of 2", n)
	}
}

// maxOverlap is the most spans running at one moment.
func maxOverlap(spans []span) int {
	type edge struct {
		at    time.Time
		delta int
	}
	var es []edge
	for _, s := range spans {
		es = append(es, edge{s.start, 1}, edge{s.end, -1})
	}
	// At equal times an end comes first: a run that ends as another
	// starts does not overlap it.
	sort.Slice(es, func(i, j int) bool {
		if es[i].at.Equal(es[j].at) {
			return es[i].delta < es[j].delta
		}
		return es[i].at.Before(es[j].at)
	})
	n, most := 0, 0
	for _, e := range es {
		n += e.delta
		most = max(most, n)
	}
	return most
}

// BenchmarkMachines measures tickets worked per minute by 1, 2 and 4
// machines on one Postgres board: 20 projects × 5 tickets, each run's
// model answering after 500 ms, 4 agents at once per machine. Run it once
// per size (the board is used up):
//
//	go test ./internal/heartbeat -run '^$' -bench Machines -benchtime 1x
func BenchmarkMachines(b *testing.B) {
	for _, machines := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("machines=%d", machines), func(b *testing.B) {
			for b.Loop() {
				u := pgtest.OwnURL(b)
				const projects, tickets = 20, 5
				machinesBoard(b, u, projects, tickets)
				spans, took := runMachines(b, u, machines, 4, 0, 500*time.Millisecond)
				checkSpans(b, spans, projects*tickets)
				b.ReportMetric(float64(len(spans))/took.Minutes(), "tickets/min")
			}
		})
	}
}
