package sqlite

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// genLink is one row of ticket_links of a generated board.
type genLink struct {
	ticket, other string
	kind          board.LinkKind
}

// linkBoards adds random links between the tickets of each project
// (blocked-by and parent, cycles included: the pick must not care) and
// removes some of those already there, straight in the table, returning the
// links as they are now.
func linkBoards(ctx context.Context, t *testing.T, db *DB, r *rand.Rand, gs []genBoard, links map[genLink]bool) {
	t.Helper()
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for l := range links {
		if r.IntN(3) == 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM ticket_links WHERE ticket_id = ? AND other_id = ? AND kind = ?`,
				l.ticket, l.other, string(l.kind)); err != nil {
				t.Fatal(err)
			}
			delete(links, l)
		}
	}
	parents := map[string]bool{}
	for l := range links {
		if l.kind == board.LinkParent {
			parents[l.ticket] = true
		}
	}
	for _, g := range gs {
		for _, p := range g.projects {
			ts := g.tickets[p.ID]
			if len(ts) < 2 {
				continue
			}
			for range r.IntN(4) {
				a, b := ts[r.IntN(len(ts))], ts[r.IntN(len(ts))]
				l := genLink{a.ID, b.ID, board.LinkBlockedBy}
				if r.IntN(3) == 0 {
					l.kind = board.LinkParent
				}
				if a.ID == b.ID || links[l] || l.kind == board.LinkParent && parents[a.ID] {
					continue
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO ticket_links (ticket_id, other_id, kind, created_at) VALUES (?, ?, ?, 0)`,
					l.ticket, l.other, string(l.kind)); err != nil {
					t.Fatal(err)
				}
				links[l] = true
				parents[a.ID] = parents[a.ID] || l.kind == board.LinkParent
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// wantWithLinks is genBoard.want with the links: a ticket whose blocker or
// sub-ticket is not DONE waits.
func (g genBoard) wantWithLinks(links map[genLink]bool) []board.Pick {
	return g.wantWaiting(waitingOf([]genBoard{g}, links))
}

// waitingOf returns the tickets of gs that wait: a blocker or a
// sub-ticket of theirs is not DONE.
func waitingOf(gs []genBoard, links map[genLink]bool) map[string]bool {
	state := map[string]board.State{}
	for _, g := range gs {
		for _, ts := range g.tickets {
			for _, tk := range ts {
				state[tk.ID] = tk.State
			}
		}
	}
	waiting := map[string]bool{}
	for l := range links {
		switch {
		case l.kind == board.LinkBlockedBy && state[l.other] != "" && state[l.other] != board.Done:
			waiting[l.ticket] = true
		case l.kind == board.LinkParent && state[l.ticket] != "" && state[l.ticket] != board.Done:
			waiting[l.other] = true
		}
	}
	return waiting
}

// finishWaitedFor moves about half of the tickets others wait for between
// VERIFICATION and DONE, straight in the table: neither state is
// pickable, so only the links' trigger recomputes the queue.
func finishWaitedFor(ctx context.Context, t *testing.T, db *DB, r *rand.Rand, gs []genBoard, links map[genLink]bool) {
	t.Helper()
	waitedFor := map[string]bool{}
	for l := range links {
		if l.kind == board.LinkBlockedBy {
			waitedFor[l.other] = true
		} else {
			waitedFor[l.ticket] = true
		}
	}
	for _, g := range gs {
		for _, ts := range g.tickets {
			for i := range ts {
				if !waitedFor[ts[i].ID] || r.IntN(2) == 0 {
					continue
				}
				ts[i].State = map[bool]board.State{true: board.Verification, false: board.Done}[ts[i].State == board.Done]
				if _, err := db.sql.ExecContext(ctx, `UPDATE tickets SET state = ? WHERE id = ?`, string(ts[i].State), ts[i].ID); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// forgetDeleted drops the links of tickets changeTickets deleted: the
// table lost them with the tickets (ON DELETE CASCADE).
func forgetDeleted(gs []genBoard, links map[genLink]bool) {
	alive := map[string]bool{}
	for _, g := range gs {
		for _, ts := range g.tickets {
			for _, tk := range ts {
				alive[tk.ID] = true
			}
		}
	}
	for l := range links {
		if !alive[l.ticket] || !alive[l.other] {
			delete(links, l)
		}
	}
}

// TestPick_AgreesWithPolicyOverLinks checks the pick SQL against
// board.PickTicket on generated boards with blockers and sub-tickets,
// after adding and removing links, moving tickets in and out of DONE and
// deleting tickets: each change must recompute the queue (the triggers of
// migration ticket_links).
func TestPick_AgreesWithPolicyOverLinks(t *testing.T) {
	t.Parallel()
	const boards = 80
	ctx := context.Background()
	db := openTest(t)
	r := rand.New(rand.NewPCG(20261129, 31))
	gs := make([]genBoard, boards)
	for n := range gs {
		gs[n] = generateBoard(r, n)
	}
	insertBoards(ctx, t, db, gs)
	links := map[genLink]bool{}
	held := 0
	check := func(when string) {
		t.Helper()
		got, err := db.Pick(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		byProject := map[string]board.Pick{}
		for _, p := range got {
			byProject[p.Ticket.ProjectID] = p
		}
		for n, g := range gs {
			want := g.wantWithLinks(links)
			var sql []board.Pick
			for _, p := range g.projects {
				if pk, ok := byProject[p.ID]; ok {
					sql = append(sql, pk)
				}
			}
			if !reflect.DeepEqual(sql, want) && (len(sql) > 0 || len(want) > 0) {
				t.Fatalf("board %d, %s:\n SQL    %s\n policy %s", n, when, describe(sql), describe(want))
			}
			if !reflect.DeepEqual(want, g.want()) {
				held++
			}
		}
	}
	for round := range 3 {
		linkBoards(ctx, t, db, r, gs, links)
		check("after linking, round " + string(rune('1'+round)))
		finishWaitedFor(ctx, t, db, r, gs, links)
		check("after finishing blockers and sub-tickets, round " + string(rune('1'+round)))
		changeTickets(ctx, t, db, r, gs)
		forgetDeleted(gs, links)
		check("after changing tickets, round " + string(rune('1'+round)))
	}
	// The links must change the pick often, or the test proves little.
	if held < boards/3 {
		t.Errorf("links changed the pick of only %d boards over 9 checks", held)
	}
	t.Logf("links changed the pick %d times over %d boards, 9 checks", held, boards)
}

// TestNotWaiting_MatchesTheTriggers keeps sqlstore.NotWaiting, which
// other queries use, the rule the queue's triggers apply: it lists the
// tickets that wait by each, on a generated board with links.
func TestNotWaiting_MatchesTheTriggers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	r := rand.New(rand.NewPCG(7, 31))
	gs := make([]genBoard, 50)
	for n := range gs {
		gs[n] = generateBoard(r, n)
	}
	insertBoards(ctx, t, db, gs)
	links := map[genLink]bool{}
	linkBoards(ctx, t, db, r, gs, links)
	var got []string
	rows, err := db.sql.QueryContext(ctx, `SELECT t.id FROM tickets t WHERE NOT (`+sqlstore.NotWaiting("t")+`) ORDER BY t.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	var want []string
	for id := range waitingOf(gs, links) {
		want = append(want, id)
	}
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("NOT NotWaiting lists %v, the rule %v", got, want)
	}
	var sqlText []byte
	if err := db.sql.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = 'tickets_queue_waits'`).Scan(&sqlText); err != nil {
		t.Fatal(err)
	}
	// The triggers spell the rule with other aliases; the same predicate
	// with theirs must appear in them.
	pred := strings.Join(strings.Fields(strings.NewReplacer("wl", "l", "wo", "o").Replace(sqlstore.NotWaiting("t"))), " ")
	if !strings.Contains(strings.Join(strings.Fields(string(sqlText)), " "), pred) {
		t.Errorf("the trigger tickets_queue_waits does not run sqlstore.NotWaiting:\n%s\nwant in it:\n%s", sqlText, pred)
	}
}

// TestLinks_UseIndexes guards the plans the links' cost depends on: the
// queue triggers still seek tickets_pick in order (no sort), checking
// each candidate's links by index, and status's list of waiting tickets
// starts from the links, never from every ticket in flight.
func TestLinks_UseIndexes(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	seek := `SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets t
		WHERE project_id = ? AND queue_class > 0 AND ` + sqlstore.NotWaiting("t") + `
		ORDER BY queue_class, priority, queue_key, number LIMIT 1`
	plan := queryPlan(t, db, seek, "p")
	for _, want := range []string{"SEARCH t USING INDEX tickets_pick (project_id=? AND queue_class>?)",
		"USING COVERING INDEX sqlite_autoindex_ticket_links_1 (ticket_id=? AND kind=?)",
		"USING COVERING INDEX ticket_links_other (other_id=? AND kind=?)"} {
		if !strings.Contains(plan, want) {
			t.Errorf("the queue's seek does not %q:\n%s", want, plan)
		}
	}
	if strings.Contains(plan, "TEMP B-TREE") || strings.Contains(plan, "SCAN t") {
		t.Errorf("the queue's seek sorts or scans:\n%s", plan)
	}
	plan = queryPlan(t, db, db.WaitingQuery(), 10)
	if strings.Contains(plan, "tickets_state") || strings.Contains(plan, "SCAN t") {
		t.Errorf("WaitingTickets reads tickets by state, not from the links:\n%s", plan)
	}
	if !strings.Contains(plan, "SEARCH t USING INDEX sqlite_autoindex_tickets_1 (id=?)") {
		t.Errorf("WaitingTickets does not look its tickets up by id:\n%s", plan)
	}
}
