package sqlite

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// countByScan counts tickets the slow way, for comparison.
func countByScan(t *testing.T, db *DB) map[string]map[board.State]int {
	t.Helper()
	rows, err := db.sql.Query(`SELECT p.slug, t.state, count(*) FROM tickets t
		JOIN projects p ON p.id = t.project_id GROUP BY p.slug, t.state`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]map[board.State]int{}
	for rows.Next() {
		var slug string
		var st board.State
		var n int
		if err := rows.Scan(&slug, &st, &n); err != nil {
			t.Fatal(err)
		}
		if out[slug] == nil {
			out[slug] = map[board.State]int{}
		}
		out[slug][st] = n
	}
	return out
}

// TestTicketCounts_FollowTickets writes, moves and deletes tickets straight
// in the tables and checks that the trigger-kept counts always equal a
// count over the tickets. 40 boards (about 450 tickets) are enough: the
// test checks that the moves went from every state to every state.
func TestTicketCounts_FollowTickets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	r := rand.New(rand.NewPCG(3, 4))
	gs := make([]genBoard, 40)
	for n := range gs {
		gs[n] = generateBoard(r, n)
	}
	insertBoards(ctx, t, db, gs)
	check := func(when string) {
		got, err := db.TicketCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := countByScan(t, db); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: TicketCounts = %v\nwant %v", when, got, want)
		}
	}
	check("as generated")

	var tickets []board.Ticket
	for _, g := range gs {
		for _, p := range g.projects {
			tickets = append(tickets, g.tickets[p.ID]...)
		}
	}
	moves := map[[2]board.State]bool{}
	for i, tk := range tickets {
		id := tk.ID
		switch r.IntN(4) {
		case 0:
			st := board.States[r.IntN(len(board.States))]
			if _, err := db.sql.Exec(`UPDATE tickets SET state = ? WHERE id = ?`, string(st), id); err != nil {
				t.Fatal(err)
			}
			moves[[2]board.State{tk.State, st}] = true
		case 1:
			if _, err := db.sql.Exec(`UPDATE tickets SET title = ? WHERE id = ?`, "renamed "+strconv.Itoa(i), id); err != nil {
				t.Fatal(err)
			}
		case 2:
			if _, err := db.sql.Exec(`DELETE FROM comments WHERE ticket_id = ?`, id); err != nil {
				t.Fatal(err)
			}
			if _, err := db.sql.Exec(`DELETE FROM tickets WHERE id = ?`, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("after moving, renaming and deleting tickets")
	for _, from := range board.States {
		for _, to := range board.States {
			if !moves[[2]board.State{from, to}] {
				t.Errorf("no ticket moved from %s to %s: the generator must try every move", from, to)
			}
		}
	}
}

// TestMigrate_FromVersion1 upgrades a database written by the first schema
// and checks that the ticket counts, the queue and the runs' ticket numbers
// are filled from the tickets it holds.
func TestMigrate_FromVersion1(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	v1, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v1.Exec(ms[0].sql + `; PRAGMA user_version = 1;
		INSERT INTO projects (id, slug, name, repo, default_branch, last_ticket_number, created_at, updated_at)
			VALUES ('p1', 'demo', 'Demo', '/r', 'main', 3, 0, 0);
		INSERT INTO tickets (id, project_id, number, title, state, priority, created_at, updated_at) VALUES
			('t1', 'p1', 1, 'a', 'DONE', 2, 0, 0),
			('t2', 'p1', 2, 'b', 'DONE', 2, 0, 0),
			('t3', 'p1', 3, 'c', 'RESEARCH', 2, 0, 0);
		INSERT INTO runs (id, ticket_id, project_id, task, status, session_key, started_at)
			VALUES ('r1', 't2', 'p1', 'implement', 'completed', 'k', 0);`); err != nil {
		t.Fatal(err)
	}
	v1.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.sql.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion() {
		t.Errorf("user_version after migrating = %d, %v; want %d", v, err, SchemaVersion())
	}
	got, err := db.TicketCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[board.State]int{"demo": {board.Done: 2, board.Research: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TicketCounts after migrating = %v, want %v", got, want)
	}
	tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "d"}, board.Human)
	if err != nil || tk.Number != 4 {
		t.Fatalf("CreateTicket after migrating = #%d, %v; want #4", tk.Number, err)
	}
	if got, _ := db.TicketCounts(ctx); got["demo"][board.Backlog] != 1 {
		t.Errorf("BACKLOG count after a new ticket = %d, want 1", got["demo"][board.Backlog])
	}
	runs, err := db.RecentRuns(ctx, 0)
	if err != nil || len(runs) != 1 || runs[0].TicketNumber != 2 || runs[0].ProjectSlug != "demo" {
		t.Errorf("RecentRuns after migrating = %+v, %v; want the run of demo#2", runs, err)
	}
	ovs, err := db.Overview(ctx, store.ProjectFilter{})
	if err != nil || len(ovs) != 1 || ovs[0].Pick == nil || ovs[0].Pick.Ticket.Ref().String() != "demo#3" || ovs[0].Pick.Ticket.Title != "c" {
		t.Errorf("Overview after migrating = %+v, %v; want demo#3 picked", ovs, err)
	}
}
