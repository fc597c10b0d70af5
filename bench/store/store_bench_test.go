package storebench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// The board of issue 2's targets: 100 projects × 1,000 tickets.
var big = Board{Projects: 100, Tickets: 1000, Seed: 2}

var (
	bigOnce sync.Once
	bigPath string
	bigErr  error
	tmpDir  string
)

func TestMain(m *testing.M) {
	// pgtest.Main stops the Postgres cluster the Postgres benchmarks
	// started, after their schema is dropped.
	code := pgtest.Main(&dropPostgres{m})
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
	}
	os.Exit(code)
}

// bigBoard returns the path of a seeded 100 × 1,000 board, written once per
// process. BONSAI_BENCH_DB names a file to keep and reuse between runs.
func bigBoard(b *testing.B) string {
	b.Helper()
	bigOnce.Do(func() {
		bigPath = os.Getenv("BONSAI_BENCH_DB")
		if bigPath == "" {
			if tmpDir, bigErr = os.MkdirTemp("", "bonsai-store-bench-"); bigErr != nil {
				return
			}
			bigPath = filepath.Join(tmpDir, "bonsai.db")
		}
		if _, err := os.Stat(bigPath); err == nil {
			return
		}
		bigErr = Seed(context.Background(), bigPath, big)
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigPath
}

func openBig(b *testing.B) *sqlite.DB {
	b.Helper()
	db, err := sqlite.Open(context.Background(), bigBoard(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkPick picks for every project of the big board, as a heartbeat
// does on each beat.
//
// Target (issue 2): < 1 ms.
func BenchmarkPick(b *testing.B) {
	db := openBig(b)
	ctx := context.Background()
	var n int
	cpu := startCPU()
	for b.Loop() {
		picks, err := db.Pick(ctx, "")
		if err != nil {
			b.Fatal(err)
		}
		n = len(picks)
	}
	cpu.report(b)
	if n != big.Projects {
		b.Fatalf("picked in %d projects, want %d", n, big.Projects)
	}
}

// BenchmarkPickProject picks in one project of the big board
// (`bonsai heartbeat --project`).
//
// Target: < 0.1 ms.
func BenchmarkPickProject(b *testing.B) {
	db := openBig(b)
	ctx := context.Background()
	cpu := startCPU()
	for b.Loop() {
		if _, err := db.Pick(ctx, "p042"); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// BenchmarkTicket reads one ticket by reference (`bonsai ticket show`).
//
// Target: < 0.1 ms.
func BenchmarkTicket(b *testing.B) {
	db := openBig(b)
	ctx := context.Background()
	ref := board.Ref{Project: "p050", Number: 500}
	cpu := startCPU()
	for b.Loop() {
		if _, err := db.Ticket(ctx, ref); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// BenchmarkTicketsProject lists the 1,000 tickets of one project
// (`bonsai ticket list p050`, the web UI's board page).
//
// Target: < 10 ms.
func BenchmarkTicketsProject(b *testing.B) {
	db := openBig(b)
	ctx := context.Background()
	cpu := startCPU()
	for b.Loop() {
		ts, err := db.Tickets(ctx, store.TicketFilter{ProjectSlug: "p050"})
		if err != nil {
			b.Fatal(err)
		}
		if len(ts) != big.Tickets {
			b.Fatalf("listed %d tickets, want %d", len(ts), big.Tickets)
		}
	}
	cpu.report(b)
}

// BenchmarkTicketCounts counts the big board's tickets per project and
// state, as `bonsai status` and the web UI's project list do.
//
// Target: < 1 ms.
func BenchmarkTicketCounts(b *testing.B) {
	db := openBig(b)
	ctx := context.Background()
	cpu := startCPU()
	for b.Loop() {
		counts, err := db.TicketCounts(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(counts) != big.Projects {
			b.Fatalf("counts for %d projects, want %d", len(counts), big.Projects)
		}
	}
	cpu.report(b)
}

// BenchmarkCreateTicket creates tickets in a project of the big board: one
// IMMEDIATE transaction that allocates the number, inserts the ticket and
// appends the event.
//
// Target (issue 2): < 2 ms.
func BenchmarkCreateTicket(b *testing.B) {
	db := openBig(b)
	ctx := context.Background()
	tk := board.Ticket{ProjectSlug: "p099", Title: "A new ticket", Description: "What to do.",
		Criteria: []string{"it works"}, Priority: 2}
	cpu := startCPU()
	for b.Loop() {
		if _, err := db.CreateTicket(ctx, tk, board.Human); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// BenchmarkAddComment adds a human comment to an in-progress ticket: the
// insert, the trigger that maintains the ticket's newest human comment, the
// ticket update and the event.
//
// Target: < 2 ms, like any single write.
func BenchmarkAddComment(b *testing.B) {
	db := openBig(b)
	ctx := context.Background()
	ts, err := db.Tickets(ctx, store.TicketFilter{ProjectSlug: "p098", State: board.InProgress})
	if err != nil || len(ts) == 0 {
		b.Fatalf("no in-progress ticket: %v", err)
	}
	c := board.Comment{AuthorType: board.Human, AuthorName: "bench", Kind: board.KindNote, Content: "One more thing."}
	cpu := startCPU()
	for b.Loop() {
		if _, err := db.AddComment(ctx, ts[0].Ref(), c); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// BenchmarkOpen opens the big board's database and closes it again: the
// store's share of every CLI command's start-up. With the schema current it
// is one query.
//
// Target: < 1 ms, so `bonsai status` starts almost as fast as `bonsai version`.
func BenchmarkOpen(b *testing.B) {
	path := bigBoard(b)
	ctx := context.Background()
	cpu := startCPU()
	for b.Loop() {
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	cpu.report(b)
}

// BenchmarkStatus is the store work of `bonsai status` on the big board,
// from a cold open: projects, ticket counts, the queue (Pick) and recent
// runs.
//
// Target: < 5 ms, far below a process start.
func BenchmarkStatus(b *testing.B) {
	path := bigBoard(b)
	ctx := context.Background()
	cpu := startCPU()
	for b.Loop() {
		db, err := sqlite.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.Projects(ctx, store.ProjectFilter{}); err != nil {
			b.Fatal(err)
		}
		if _, err := db.TicketCounts(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Pick(ctx, ""); err != nil {
			b.Fatal(err)
		}
		if _, err := db.RecentRuns(ctx, 10); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	cpu.report(b)
}

// BenchmarkSeed writes a 10-project board, to show what Seed costs.
func BenchmarkSeed(b *testing.B) {
	dir := b.TempDir()
	i := 0
	cpu := startCPU()
	for b.Loop() {
		i++
		if err := Seed(context.Background(), filepath.Join(dir, fmt.Sprintf("%d.db", i)), Board{Projects: 10, Tickets: 1000}); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}
