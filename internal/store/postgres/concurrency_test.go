package postgres_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// TestConcurrentWriters has four stores (four processes' pools) write one
// board at once while a reader follows the events with a cursor, as the
// web UI does. The reader must see every event: an event id taken by one
// transaction and committed after a later id would be skipped for ever.
// Ticket numbers must run without gaps or duplicates.
func TestConcurrentWriters(t *testing.T) {
	ctx := t.Context()
	u := pgtest.URL(t)
	open := func() *postgres.DB {
		db, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	reader := open()
	if _, err := reader.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "https://example.com/d.git", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	const writers, perWriter = 4, 60
	var done atomic.Bool
	seen := map[int64]bool{}
	var readErr error
	var rg sync.WaitGroup
	rg.Go(func() {
		var after int64
		for {
			finished := done.Load()
			es, err := reader.Events(ctx, after, 1000)
			if err != nil {
				readErr = err
				return
			}
			for _, e := range es {
				seen[e.ID] = true
				after = e.ID
			}
			if finished && len(es) == 0 {
				return
			}
		}
	})
	var wg sync.WaitGroup
	for w := range writers {
		db := open()
		wg.Go(func() {
			for i := range perWriter {
				tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: fmt.Sprintf("w%d-%d", w, i)}, board.Human)
				if err == nil {
					_, err = db.AddComment(ctx, tk.Ref(), board.Comment{AuthorType: board.Human, AuthorName: "a", Kind: board.KindNote, Content: "c"})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	done.Store(true)
	rg.Wait()
	if readErr != nil {
		t.Fatal(readErr)
	}
	all, err := reader.Events(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 2*writers*perWriter; len(all) != want {
		t.Errorf("%d events, want %d", len(all), want)
	}
	for _, e := range all {
		if !seen[e.ID] {
			t.Errorf("the reader following the cursor never saw event %d (%s)", e.ID, e.Type)
		}
	}
	ts, err := reader.Tickets(ctx, store.TicketFilter{ProjectSlug: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	for i, tk := range ts {
		if tk.Number != i+1 {
			t.Fatalf("ticket %d has number %d: numbers must run 1..%d", i, tk.Number, len(ts))
		}
	}
}

// TestLeaseRace has eight workers, each with its own store (eight
// machines), race for the tickets of four projects with a limit of three:
// every project gets at most one lease and three are given in all.
func TestLeaseRace(t *testing.T) {
	perProject := leaseRace(t, map[string]int{"a": 0, "b": 0, "c": 0, "d": 0}, 3, 3)
	if n := perProject["a"] + perProject["b"] + perProject["c"] + perProject["d"]; n != 3 || len(perProject) != 3 {
		t.Errorf("%d leases over %v; want 3 in 3 projects", n, perProject)
	}
}

// TestEventsChanged: a write in another store (another machine) wakes a
// reader listening for events; a change that appends none does not.
func TestEventsChanged(t *testing.T) {
	ctx := t.Context()
	u := pgtest.URL(t)
	reader, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	writer, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	changed := reader.EventsChanged(ctx)
	wait := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no notification", what)
		}
	}
	// The listener may not listen yet: write until a notification comes.
	for i := 0; ; i++ {
		if _, err := writer.CreateProject(ctx, board.Project{Slug: fmt.Sprintf("p%d", i), Name: "P",
			Repo: "https://example.com/r.git", DefaultBranch: "main"}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond):
			continue
		}
		break
	}
	// Drain what the loop may have left, then one write, one wake.
	time.Sleep(50 * time.Millisecond)
	select {
	case <-changed:
	default:
	}
	if _, err := writer.CreateTicket(ctx, board.Ticket{ProjectSlug: "p0", Title: "t"}, board.Human); err != nil {
		t.Fatal(err)
	}
	wait("CreateTicket")
}
