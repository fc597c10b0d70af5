package sqlite

import (
	"context"
	"database/sql"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// TestPool_KeepsItsConnections takes 8 connections at once, five times
// over: the pool opens 8 and keeps them, instead of closing all but two
// after each round and opening them again (database/sql's default).
func TestPool_KeepsItsConnections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := OpenCopyForTest(t)
	defer db.Close()
	// What the pool opened: those open now and those it closed.
	opened := func() int64 {
		s := db.sql.Stats()
		return int64(s.OpenConnections) + s.MaxIdleClosed + s.MaxIdleTimeClosed + s.MaxLifetimeClosed
	}
	base := opened()
	const held = 8
	for range 5 {
		conns := make([]*sql.Conn, held)
		for i := range conns {
			c, err := db.sql.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := c.QueryRowContext(ctx, `SELECT count(*) FROM projects`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			conns[i] = c
		}
		for _, c := range conns {
			c.Close()
		}
	}
	if n := opened() - base; n > held {
		t.Errorf("five rounds of %d connections at once opened %d connections, want at most %d", held, n, held)
	}
}

// TestStatements_PreparedOnce runs the same reads and writes three times:
// the first round prepares the reads, the second the writes' statements
// too (a text first met in a transaction is prepared when it comes
// again), and the third prepares none.
func TestStatements_PreparedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := OpenCopyForTest(t)
	defer db.Close()
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/src/demo", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	round := func() int {
		tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Greet"}, board.Human)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.AddComment(ctx, tk.Ref(), board.Comment{AuthorType: board.Human, AuthorName: "ana",
			Kind: board.KindNote, Content: "hello"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Tickets(ctx, store.TicketFilter{ProjectSlug: "demo"}); err != nil {
			t.Fatal(err)
		}
		return db.Statements()
	}
	first, second, third := round(), round(), round()
	if first == 0 || second <= first {
		t.Fatalf("prepared %d statements after one round, %d after two; want some, then the writes' too", first, second)
	}
	if third != second {
		t.Errorf("the third round prepared %d statements more, want none", third-second)
	}
}
