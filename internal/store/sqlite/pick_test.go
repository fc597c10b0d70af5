package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// genBoard is a randomly generated set of projects with their tickets and
// comments, written straight into the tables so that every shape the schema
// allows can occur: equal timestamps, any sub-state in any state, human
// comments on tickets in any state, resolved and unresolved.
type genBoard struct {
	projects []board.Project
	tickets  map[string][]board.Ticket // by project ID
	comments map[string][]board.Comment
}

// base is the generated boards' epoch; every time is a few milliseconds
// after it, so ties are frequent.
var base = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func genTime(r *rand.Rand) time.Time {
	return base.Add(time.Duration(r.IntN(6)) * time.Millisecond)
}

func generateBoard(r *rand.Rand, n int) genBoard {
	g := genBoard{tickets: map[string][]board.Ticket{}, comments: map[string][]board.Comment{}}
	states := []board.State{board.Backlog, board.Research, board.Research, board.InProgress, board.InProgress,
		board.InProgress, board.Verification, board.Done}
	subs := []board.SubState{board.SubNone, board.SubNone, board.SubBlocked, board.SubReturned}
	authors := []board.Actor{board.Human, board.Human, board.Agent, board.System}
	for pi := range 1 + r.IntN(4) {
		p := board.Project{
			ID: fmt.Sprintf("p%d-%d", n, pi), Slug: fmt.Sprintf("b%04d-p%d", n, pi), Name: "p", Repo: "/r",
			DefaultBranch: "main", Active: r.IntN(5) > 0, CreatedAt: base, UpdatedAt: base,
			Agent: board.AgentSettings{TakeBacklog: r.IntN(3) == 0},
		}
		g.projects = append(g.projects, p)
		for ti := range r.IntN(10) {
			created := genTime(r)
			t := board.Ticket{
				ID: fmt.Sprintf("%s-t%d", p.ID, ti), ProjectID: p.ID, ProjectSlug: p.Slug, Number: ti + 1,
				Title: "t", Criteria: []string{}, State: states[r.IntN(len(states))], SubState: subs[r.IntN(len(subs))],
				Priority: r.IntN(3) * 2, CreatedAt: created, UpdatedAt: created.Add(time.Duration(r.IntN(3)) * time.Millisecond),
			}
			g.tickets[p.ID] = append(g.tickets[p.ID], t)
			for ci := range r.IntN(4) {
				g.comments[t.ID] = append(g.comments[t.ID], board.Comment{
					ID: fmt.Sprintf("%s-c%d", t.ID, ci), TicketID: t.ID, AuthorType: authors[r.IntN(len(authors))],
					Kind: board.KindNote, Content: "c", Resolved: r.IntN(2) == 0, CreatedAt: genTime(r),
				})
			}
		}
	}
	return g
}

// insert writes the boards into the tables in one transaction.
func insertBoards(ctx context.Context, t *testing.T, db *DB, gs []genBoard) {
	t.Helper()
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// Room for the whole transaction in the page cache, so that SQLite
	// does not spill pages to the WAL before the commit.
	if _, err := tx.ExecContext(ctx, `PRAGMA cache_size = -65536`); err != nil {
		t.Fatal(err)
	}
	prepare := func(q string) func(args ...any) {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return func(args ...any) {
			if _, err := st.ExecContext(ctx, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	insProject := prepare(`INSERT INTO projects (id, slug, name, repo, default_branch, active, take_backlog, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	insTicket := prepare(`INSERT INTO tickets (id, project_id, number, title, state, sub_state, priority, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	insComment := prepare(`INSERT INTO comments (id, ticket_id, author_type, kind, content, resolved, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`)
	for _, g := range gs {
		for _, p := range g.projects {
			insProject(p.ID, p.Slug, p.Name, p.Repo, p.DefaultBranch, p.Active, p.Agent.TakeBacklog, p.CreatedAt.UnixMilli(), p.UpdatedAt.UnixMilli())
			for _, tk := range g.tickets[p.ID] {
				insTicket(tk.ID, tk.ProjectID, tk.Number, tk.Title, string(tk.State), string(tk.SubState), tk.Priority,
					tk.CreatedAt.UnixMilli(), tk.UpdatedAt.UnixMilli())
				for _, c := range g.comments[tk.ID] {
					insComment(c.ID, c.TicketID, string(c.AuthorType), string(c.Kind), c.Content, c.Resolved, c.CreatedAt.UnixMilli())
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// changeComments resolves, unresolves and deletes some comments straight in
// the table, in one transaction, and updates the boards to match.
func changeComments(ctx context.Context, t *testing.T, db *DB, r *rand.Rand, gs []genBoard) {
	t.Helper()
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	set, err := tx.PrepareContext(ctx, `UPDATE comments SET resolved = ? WHERE id = ?`)
	if err != nil {
		t.Fatal(err)
	}
	del, err := tx.PrepareContext(ctx, `DELETE FROM comments WHERE id = ?`)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		for _, p := range g.projects {
			for _, tk := range g.tickets[p.ID] {
				cs := g.comments[tk.ID]
				for i := range cs {
					switch r.IntN(4) {
					case 0:
						cs[i].Resolved = !cs[i].Resolved
						_, err = set.ExecContext(ctx, cs[i].Resolved, cs[i].ID)
					case 1:
						_, err = del.ExecContext(ctx, cs[i].ID)
						cs[i].AuthorType = board.System // as good as gone for the policy
					}
					if err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// changeTickets moves, reprioritises, touches, renames and deletes some
// tickets straight in the table, in one transaction, and updates the boards
// to match: every kind of write the ticket_queue triggers must follow.
func changeTickets(ctx context.Context, t *testing.T, db *DB, r *rand.Rand, gs []genBoard) {
	t.Helper()
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	stmts := map[string]*sql.Stmt{}
	exec := func(q string, args ...any) {
		st, ok := stmts[q]
		if !ok {
			if st, err = tx.PrepareContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			stmts[q] = st
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	subs := []board.SubState{board.SubNone, board.SubBlocked, board.SubReturned}
	for _, g := range gs {
		for _, p := range g.projects {
			kept := g.tickets[p.ID][:0]
			for _, tk := range g.tickets[p.ID] {
				switch r.IntN(7) {
				case 0:
					tk.State = board.States[r.IntN(len(board.States))]
					exec(`UPDATE tickets SET state = ? WHERE id = ?`, string(tk.State), tk.ID)
				case 1:
					tk.SubState = subs[r.IntN(len(subs))]
					exec(`UPDATE tickets SET sub_state = ? WHERE id = ?`, string(tk.SubState), tk.ID)
				case 2:
					tk.Priority = r.IntN(3) * 2
					exec(`UPDATE tickets SET priority = ? WHERE id = ?`, tk.Priority, tk.ID)
				case 3:
					tk.UpdatedAt = genTime(r).Add(time.Millisecond)
					exec(`UPDATE tickets SET updated_at = ? WHERE id = ?`, tk.UpdatedAt.UnixMilli(), tk.ID)
				case 4:
					tk.Title = "renamed " + tk.ID
					exec(`UPDATE tickets SET title = ? WHERE id = ?`, tk.Title, tk.ID)
				case 5:
					exec(`DELETE FROM comments WHERE ticket_id = ?`, tk.ID)
					exec(`DELETE FROM tickets WHERE id = ?`, tk.ID)
					delete(g.comments, tk.ID)
					continue
				}
				kept = append(kept, tk)
			}
			g.tickets[p.ID] = kept
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// want applies board.PickTicket to each active project of the board, as
// generated, and returns the picks by project slug.
func (g genBoard) want() []board.Pick { return g.wantWaiting(nil) }

// wantWaiting is want with the tickets in waiting waiting (a blocker or a
// sub-ticket not DONE).
func (g genBoard) wantWaiting(waiting map[string]bool) []board.Pick {
	picks := []board.Pick{}
	for _, p := range g.projects { // generated in slug order
		if !p.Active {
			continue
		}
		var cands []board.Candidate
		for _, tk := range g.tickets[p.ID] {
			c := board.Candidate{Ticket: tk, Waiting: waiting[tk.ID]}
			for _, cm := range g.comments[tk.ID] {
				if cm.AuthorType == board.Human && !cm.Resolved && cm.CreatedAt.After(c.LastHumanComment) {
					c.LastHumanComment = cm.CreatedAt
				}
			}
			cands = append(cands, c)
		}
		if pick, ok := board.PickTicket(cands, p.Agent.TakeBacklog); ok {
			picks = append(picks, pick)
		}
	}
	return picks
}

// TestPick_AgreesWithPolicy checks the pick SQL against board.PickTicket on
// generated boards, before and after changing their comments and their
// tickets (which the triggers must follow). The boards share one database, told apart by
// their projects' slugs: the policy works per project, so they cannot
// interfere, and one database keeps the test fast under -race. 300 boards
// are enough (1,000 took 11 s of CPU under -race): the test checks that
// every class of pick occurred on at least one board in twenty.
func TestPick_AgreesWithPolicy(t *testing.T) {
	t.Parallel()
	const boards = 300
	ctx := context.Background()
	db := openTest(t)
	r := rand.New(rand.NewPCG(20261125, 7))
	gs := make([]genBoard, boards)
	for n := range gs {
		gs[n] = generateBoard(r, n)
	}
	insertBoards(ctx, t, db, gs)

	stats := map[board.PickClass]int{}
	check := func(when string) {
		got, err := db.Pick(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		byProject := map[string]board.Pick{}
		for _, p := range got {
			byProject[p.Ticket.ProjectID] = p
			stats[p.Class]++
		}
		var all []board.Pick
		for n, g := range gs {
			want := g.want()
			all = append(all, want...)
			var sql []board.Pick
			for _, p := range g.projects {
				if pk, ok := byProject[p.ID]; ok {
					sql = append(sql, pk)
				}
			}
			if !reflect.DeepEqual(sql, want) && (len(sql) > 0 || len(want) > 0) {
				t.Fatalf("board %d, %s:\n SQL    %s\n policy %s", n, when, describe(sql), describe(want))
			}
		}
		if len(got) != len(all) {
			t.Fatalf("%s: Pick returned %d picks, the policy %d", when, len(got), len(all))
		}
		// Overview gives the same picks with the listed fields alone.
		ovs, err := db.Overview(ctx, store.ProjectFilter{IncludeArchived: true})
		if err != nil {
			t.Fatal(err)
		}
		var brief []board.Pick
		for _, o := range ovs {
			if o.Pick != nil {
				brief = append(brief, *o.Pick)
			}
		}
		if len(brief) != len(got) {
			t.Fatalf("%s: Overview has %d picks, Pick %d", when, len(brief), len(got))
		}
		for i, p := range got {
			tk := p.Ticket
			want := board.Pick{Class: p.Class, Ticket: board.Ticket{ProjectSlug: tk.ProjectSlug, Number: tk.Number,
				Title: tk.Title, State: tk.State, SubState: tk.SubState, Priority: tk.Priority}}
			if !reflect.DeepEqual(brief[i], want) {
				t.Fatalf("%s: Overview's pick %d = %+v, want %+v", when, i, brief[i], want)
			}
		}
		// A project by name gives that project's pick alone.
		for range 100 {
			g := gs[r.IntN(len(gs))]
			p := g.projects[r.IntN(len(g.projects))]
			one, err := db.Pick(ctx, p.Slug)
			if err != nil {
				t.Fatal(err)
			}
			want, ok := byProject[p.ID]
			if len(one) != 1 && ok || len(one) != 0 && !ok || ok && !reflect.DeepEqual(one[0], want) {
				t.Fatalf("%s: Pick(%s) = %s, want %s", when, p.Slug, describe(one), describe([]board.Pick{want}))
			}
		}
	}
	check("as generated")
	changeComments(ctx, t, db, r, gs)
	check("after changing comments")
	changeTickets(ctx, t, db, r, gs)
	check("after changing tickets")

	// The generator must exercise every class, or the test proves little.
	for _, cl := range []board.PickClass{board.ClassHumanReply, board.ClassReturned, board.ClassInProgress, board.ClassResearch, board.ClassBacklog} {
		if stats[cl] < boards/20 {
			t.Errorf("only %d picks of class %q in %d boards", stats[cl], cl, boards)
		}
	}
	t.Logf("picks by class over %d boards, checked three times: %v", boards, stats)
}

func describe(ps []board.Pick) string {
	s := "["
	for _, p := range ps {
		s += fmt.Sprintf(" %s(%s p%d c%s u%s)", p.Ticket.Ref(), p.Class, p.Ticket.Priority,
			p.Ticket.CreatedAt.Format(".000"), p.Ticket.UpdatedAt.Format(".000"))
	}
	return s + " ]"
}

// queryPlan returns the EXPLAIN QUERY PLAN lines of q, one a line.
func queryPlan(t *testing.T, db *DB, q string, args ...any) string {
	t.Helper()
	rows, err := db.sql.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan += detail + "\n"
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestPick_UsesIndex guards the query plans the benchmark depends on: the
// pick reads one ticket_queue row per project (and Pick one ticket by
// rowid), with no sorting; the triggers that keep ticket_queue recompute a
// project's row with one seek into the partial tickets_pick index.
func TestPick_UsesIndex(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	pickAll, _ := db.PickQuery("")
	pickOne, _ := db.PickQuery("demo")
	for name, tc := range map[string]struct {
		q    string
		want []string
	}{
		"Pick":         {pickAll, []string{"SEARCH q USING PRIMARY KEY (project_id=?)", "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"}},
		"Pick project": {pickOne, []string{"SEARCH p USING INDEX", "SEARCH q USING PRIMARY KEY (project_id=?)", "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)"}},
		"Overview":     {overviewQuery, []string{"SEARCH q USING PRIMARY KEY (project_id=?)", "SEARCH c USING PRIMARY KEY (project_id=?)"}},
		// The statement the ticket_queue triggers run (migration 0007).
		"trigger": {`SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets
			WHERE project_id = ? AND queue_class > 0
			ORDER BY queue_class, priority, queue_key, number
			LIMIT 1`, []string{"USING INDEX tickets_pick (project_id=? AND queue_class>?)"}},
	} {
		args := []any{""}
		if tc.q == pickAll {
			args = nil
		}
		plan := queryPlan(t, db, tc.q, args...)
		for _, w := range tc.want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s query plan:\n%s\nwant %q", name, plan, w)
			}
		}
		if strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s query plan:\n%s\nwant no temporary sort", name, plan)
		}
	}
}

// TestTickets_UsesIndexes guards the plans of the ticket lists and counts
// status and the board read: none scans every ticket, and the blocked list
// status shows the start of needs no sort.
func TestTickets_UsesIndexes(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	for _, tc := range []struct {
		name   string
		f      store.TicketFilter
		index  string
		noSort bool
	}{
		{"blocked", store.TicketFilter{Blocked: true, Limit: 20}, "tickets_blocked", true},
		{"one project", store.TicketFilter{ProjectSlug: "demo"}, "sqlite_autoindex_tickets", true},
		{"one state", store.TicketFilter{State: board.Research}, "tickets_state", false},
	} {
		q, args := db.TicketsQuery(tc.f)
		plan := queryPlan(t, db, q, args...)
		// A scan of a partial index reads only its entries; a bare "SCAN t"
		// reads the whole table.
		if !strings.Contains(plan, tc.index) || strings.Contains(plan+"\n", "SCAN t\n") {
			t.Errorf("%s: plan\n%s\nwant %s, no scan of the tickets table", tc.name, plan, tc.index)
		}
		if tc.noSort && strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s: plan\n%s\nwant no sort", tc.name, plan)
		}
	}
	// Counting the blocked tickets reads tickets_blocked alone.
	q, args := sqlstore.CountQuery(store.TicketFilter{Blocked: true})
	if plan := queryPlan(t, db, q, args...); !strings.Contains(plan, "COVERING INDEX tickets_blocked") {
		t.Errorf("blocked count plan:\n%s\nwant a scan of tickets_blocked alone", plan)
	}
}

// TestRunningRuns_UsesIndex guards the plan of the running runs status
// lists: the partial index of running runs, not a scan of every run.
func TestRunningRuns_UsesIndex(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	if plan := queryPlan(t, db, sqlstore.RunningRunsQuery); !strings.Contains(plan, "USING INDEX runs_running") {
		t.Errorf("running runs plan:\n%s\nwant a search of runs_running", plan)
	}
}
