package storebench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/boardcopy"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// The big board on Postgres (issue 18): the SQLite board of bigBoard,
// copied once per process into a schema of the test cluster (or of
// BONSAI_TEST_DATABASE_URL's server) with `store migrate`'s copy, so both
// stores are measured on the same rows. The schema is dropped by TestMain.
var (
	pgOnce sync.Once
	pgURL  string
	pgErr  error
	pgDrop func()
)

func bigPostgres(b *testing.B) string {
	b.Helper()
	path := bigBoard(b)
	server := pgtest.Server(b)
	pgOnce.Do(func() {
		buf := make([]byte, 6)
		rand.Read(buf)
		schema := "bench_" + hex.EncodeToString(buf)
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, server)
		if err != nil {
			pgErr = err
			return
		}
		defer conn.Close(ctx)
		if _, pgErr = conn.Exec(ctx, "CREATE SCHEMA "+schema); pgErr != nil {
			return
		}
		pgDrop = func() {
			if c, err := pgx.Connect(ctx, server); err == nil {
				c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
				c.Close(ctx)
			}
		}
		pgURL = pgtest.WithSearchPath(server, schema)
		src, err := sqlite.Open(ctx, path)
		if err != nil {
			pgErr = err
			return
		}
		defer src.Close()
		dst, err := postgres.Open(ctx, pgURL)
		if err != nil {
			pgErr = err
			return
		}
		defer dst.Close()
		if _, pgErr = boardcopy.Copy(ctx, src, dst); pgErr != nil {
			return
		}
		_, pgErr = conn.Exec(ctx, "ANALYZE") // fresh statistics, as autovacuum would give a live board
	})
	if pgErr != nil {
		b.Fatal(pgErr)
	}
	return pgURL
}

func openBigPostgres(b *testing.B) *postgres.DB {
	b.Helper()
	db, err := postgres.Open(context.Background(), bigPostgres(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// benchPick is BenchmarkPick's loop on any store.
func benchPick(b *testing.B, s store.Store, slug string, want int) {
	ctx := context.Background()
	cpu := startCPU()
	var n int
	for b.Loop() {
		picks, err := s.Pick(ctx, slug)
		if err != nil {
			b.Fatal(err)
		}
		n = len(picks)
	}
	cpu.report(b)
	if n != want {
		b.Fatalf("picked in %d projects, want %d", n, want)
	}
}

// benchOverview reads the projects with their counts and queue, as
// `bonsai status` and the web status page do.
func benchOverview(b *testing.B, s store.Store) {
	ctx := context.Background()
	cpu := startCPU()
	for b.Loop() {
		ov, err := s.Overview(ctx, store.ProjectFilter{})
		if err != nil {
			b.Fatal(err)
		}
		if len(ov) != big.Projects {
			b.Fatalf("overview of %d projects, want %d", len(ov), big.Projects)
		}
	}
	cpu.report(b)
}

func benchCounts(b *testing.B, s store.Store) {
	ctx := context.Background()
	cpu := startCPU()
	for b.Loop() {
		counts, err := s.TicketCounts(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(counts) != big.Projects {
			b.Fatalf("counts for %d projects, want %d", len(counts), big.Projects)
		}
	}
	cpu.report(b)
}

func benchCreateTicket(b *testing.B, s store.Store) {
	ctx := context.Background()
	tk := board.Ticket{ProjectSlug: "p099", Title: "A new ticket", Description: "What to do.",
		Criteria: []string{"it works"}, Priority: 2}
	cpu := startCPU()
	for b.Loop() {
		if _, err := s.CreateTicket(ctx, tk, board.Human); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

func benchAddComment(b *testing.B, s store.Store) {
	ctx := context.Background()
	ts, err := s.Tickets(ctx, store.TicketFilter{ProjectSlug: "p098", State: board.InProgress})
	if err != nil || len(ts) == 0 {
		b.Fatalf("no in-progress ticket: %v", err)
	}
	c := board.Comment{AuthorType: board.Human, AuthorName: "bench", Kind: board.KindNote, Content: "One more thing."}
	cpu := startCPU()
	for b.Loop() {
		if _, err := s.AddComment(ctx, ts[0].Ref(), c); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// BenchmarkOverview: the queue and counts of `bonsai status` on SQLite,
// for comparison with BenchmarkPostgresOverview.
func BenchmarkOverview(b *testing.B) { benchOverview(b, openBig(b)) }

// BenchmarkPostgresPick: BenchmarkPick on Postgres. The cpu-ns/op metric
// counts only this process (the client); the server's work shows in the
// wall time.
//
// Target: SQLite's, < 1 ms.
func BenchmarkPostgresPick(b *testing.B) { benchPick(b, openBigPostgres(b), "", big.Projects) }

// BenchmarkPostgresPickProject: BenchmarkPickProject on Postgres.
//
// Target: < 0.1 ms beyond a round trip to the server.
func BenchmarkPostgresPickProject(b *testing.B) { benchPick(b, openBigPostgres(b), "p042", 1) }

// BenchmarkPostgresRoundTrip: a query that reads nothing (SELECT 1)
// through a pool like the store's, on the same server: what a round trip
// costs, which BenchmarkPostgresPickProject's target leaves out.
func BenchmarkPostgresRoundTrip(b *testing.B) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, bigPostgres(b))
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	cpu := startCPU()
	var n int
	for b.Loop() {
		if err := pool.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// BenchmarkPostgresTicketCounts: BenchmarkTicketCounts on Postgres.
//
// Target: < 1 ms.
func BenchmarkPostgresTicketCounts(b *testing.B) { benchCounts(b, openBigPostgres(b)) }

// BenchmarkPostgresOverview: BenchmarkOverview on Postgres, the queue
// with the counts.
//
// Target: < 1 ms.
func BenchmarkPostgresOverview(b *testing.B) { benchOverview(b, openBigPostgres(b)) }

// BenchmarkPostgresCreateTicket: BenchmarkCreateTicket on Postgres.
//
// Target: < 2 ms.
func BenchmarkPostgresCreateTicket(b *testing.B) { benchCreateTicket(b, openBigPostgres(b)) }

// BenchmarkPostgresAddComment: BenchmarkAddComment on Postgres.
//
// Target: < 2 ms.
func BenchmarkPostgresAddComment(b *testing.B) { benchAddComment(b, openBigPostgres(b)) }

// dropPostgres runs the tests, then drops the big board's schema.
type dropPostgres struct{ m *testing.M }

// Run implements what pgtest.Main runs.
func (d *dropPostgres) Run() int {
	code := d.m.Run()
	if pgDrop != nil {
		pgDrop()
	}
	return code
}
