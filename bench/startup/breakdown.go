package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/view"
)

// breakdownEnv, when set in a child's environment, makes the benchmark
// binary time one status load step by step and print the steps as JSON.
const breakdownEnv = "BONSAI_BENCH_BREAKDOWN"

// step is one timed part of a status load in a fresh process.
type step struct {
	Name string
	D    time.Duration
}

// breakdown re-executes this binary runs times, each a fresh process that
// opens the board and loads status once, and prints each step's median.
func breakdown(data string, runs int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var names []string
	times := map[string][]time.Duration{}
	for range runs {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), breakdownEnv+"="+filepath.Join(data, "bonsai.db"))
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("breakdown child: %w", err)
		}
		var steps []step
		if err := json.Unmarshal(out, &steps); err != nil {
			return fmt.Errorf("breakdown child: %w", err)
		}
		for _, s := range steps {
			if _, ok := times[s.Name]; !ok {
				names = append(names, s.Name)
			}
			times[s.Name] = append(times[s.Name], s.D)
		}
	}
	fmt.Println("fresh-process status load, median of", runs, "runs:")
	for _, n := range names {
		fmt.Printf("  %-14s %v\n", n, median(times[n]).Round(time.Microsecond))
	}
	return nil
}

// breakdownChild opens the database at path, loads status through a source
// that times each call, closes it, and prints the steps as JSON.
func breakdownChild(path string) error {
	ctx := context.Background()
	var steps []step
	mark := func(name string, start time.Time) { steps = append(steps, step{name, time.Since(start)}) }
	all := time.Now()
	start := time.Now()
	db, err := sqlite.Open(ctx, path, sqlite.WithCachePages(sqlite.OneShotCachePages)) // as bonsai status
	if err != nil {
		return err
	}
	mark("open", start)
	src := timedSource{db: db, mark: mark}
	if _, err := view.LoadStatus(ctx, src, view.StatusOptions{Now: time.Now()}); err != nil {
		return err
	}
	start = time.Now()
	if err := db.Close(); err != nil {
		return err
	}
	mark("close", start)
	mark("total", all)
	return json.NewEncoder(os.Stdout).Encode(steps)
}

// timedSource times each call status makes to the store.
type timedSource struct {
	db   *sqlite.DB
	mark func(string, time.Time)
}

func (s timedSource) Overview(ctx context.Context, f store.ProjectFilter) ([]store.ProjectOverview, error) {
	defer s.mark("overview", time.Now())
	return s.db.Overview(ctx, f)
}

func (s timedSource) Tickets(ctx context.Context, f store.TicketFilter) ([]board.Ticket, error) {
	defer s.mark("tickets", time.Now())
	return s.db.Tickets(ctx, f)
}

func (s timedSource) CountTickets(ctx context.Context, f store.TicketFilter) (int, error) {
	defer s.mark("countTickets", time.Now())
	return s.db.CountTickets(ctx, f)
}

func (s timedSource) RecentRuns(ctx context.Context, limit int) ([]board.Run, error) {
	defer s.mark("recentRuns", time.Now())
	return s.db.RecentRuns(ctx, limit)
}

func (s timedSource) RunningRuns(ctx context.Context) ([]board.Run, error) {
	defer s.mark("runningRuns", time.Now())
	return s.db.RunningRuns(ctx)
}

func (s timedSource) Spend(ctx context.Context, slug string, since time.Time) (store.Spend, error) {
	defer s.mark("spend", time.Now())
	return s.db.Spend(ctx, slug, since)
}

func (s timedSource) WaitingTickets(ctx context.Context, limit int) ([]board.Ticket, error) {
	defer s.mark("waiting", time.Now())
	return s.db.WaitingTickets(ctx, limit)
}

func (s timedSource) TicketLinks(ctx context.Context, ref board.Ref) (board.Links, error) {
	defer s.mark("links", time.Now())
	return s.db.TicketLinks(ctx, ref)
}
