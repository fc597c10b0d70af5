package postgres

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// policyBoard is a random board written straight into the tables, so that
// every shape the schema allows occurs: equal times, any sub-state in any
// state, human comments on tickets in any state, resolved or not.
type policyBoard struct {
	projects []board.Project
	tickets  map[string][]board.Ticket // by project ID
	comments map[string][]board.Comment
}

var policyBase = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func policyTime(r *rand.Rand) time.Time {
	return policyBase.Add(time.Duration(r.IntN(6)) * time.Millisecond)
}

func genPolicyBoard(r *rand.Rand, n int) policyBoard {
	g := policyBoard{tickets: map[string][]board.Ticket{}, comments: map[string][]board.Comment{}}
	states := []board.State{board.Backlog, board.Research, board.Research, board.InProgress, board.InProgress,
		board.InProgress, board.Verification, board.Done}
	subs := []board.SubState{board.SubNone, board.SubNone, board.SubBlocked, board.SubReturned}
	authors := []board.Actor{board.Human, board.Human, board.Agent, board.System}
	for pi := range 1 + r.IntN(4) {
		p := board.Project{ID: fmt.Sprintf("p%d-%d", n, pi), Slug: fmt.Sprintf("b%04d-p%d", n, pi),
			Active: r.IntN(5) > 0, Agent: board.AgentSettings{TakeBacklog: r.IntN(3) == 0}}
		g.projects = append(g.projects, p)
		for ti := range r.IntN(10) {
			created := policyTime(r)
			t := board.Ticket{ID: fmt.Sprintf("%s-t%d", p.ID, ti), ProjectID: p.ID, ProjectSlug: p.Slug, Number: ti + 1,
				State: states[r.IntN(len(states))], SubState: subs[r.IntN(len(subs))], Priority: r.IntN(3) * 2,
				CreatedAt: created, UpdatedAt: created.Add(time.Duration(r.IntN(3)) * time.Millisecond)}
			g.tickets[p.ID] = append(g.tickets[p.ID], t)
			for ci := range r.IntN(4) {
				g.comments[t.ID] = append(g.comments[t.ID], board.Comment{ID: fmt.Sprintf("%s-c%d", t.ID, ci),
					TicketID: t.ID, AuthorType: authors[r.IntN(len(authors))], Resolved: r.IntN(2) == 0, CreatedAt: policyTime(r)})
			}
		}
	}
	return g
}

// want is board.PickTicket's answer for each active project, by slug.
func (g policyBoard) want() map[string]board.Pick { return g.wantWaiting(nil) }

// wantWaiting is want with the tickets in waiting waiting (a blocker or
// a sub-ticket not DONE).
func (g policyBoard) wantWaiting(waiting map[string]bool) map[string]board.Pick {
	out := map[string]board.Pick{}
	for _, p := range g.projects {
		if !p.Active {
			continue
		}
		var cands []board.Candidate
		for _, t := range g.tickets[p.ID] {
			c := board.Candidate{Ticket: t, Waiting: waiting[t.ID]}
			for _, cm := range g.comments[t.ID] {
				if cm.AuthorType == board.Human && !cm.Resolved && cm.CreatedAt.After(c.LastHumanComment) {
					c.LastHumanComment = cm.CreatedAt
				}
			}
			cands = append(cands, c)
		}
		if pk, ok := board.PickTicket(cands, p.Agent.TakeBacklog); ok {
			out[p.Slug] = pk
		}
	}
	return out
}

// TestPick_AgreesWithPolicy compares Pick and Overview with
// board.PickTicket on 300 random boards, then again after comments are
// resolved, unresolved and deleted and tickets changed behind the store's
// back, which checks the comments trigger and the generated columns. Each
// picked ticket must equal the ticket as Tickets reads it, also after its
// text changes: Pick reads ticket_queue's copy.
func TestPick_AgreesWithPolicy(t *testing.T) {
	ctx := t.Context()
	db, err := Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(18, 2026))
	gs := make([]policyBoard, 300)
	for i := range gs {
		gs[i] = genPolicyBoard(r, i)
	}
	inTx := func(fn func(tx pgx.Tx)) {
		t.Helper()
		err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error { fn(tx); return nil })
		if err != nil {
			t.Fatal(err)
		}
	}
	exec := func(tx pgx.Tx, q string, args ...any) {
		t.Helper()
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	inTx(func(tx pgx.Tx) {
		for _, g := range gs {
			for _, p := range g.projects {
				exec(tx, `INSERT INTO projects (id, slug, name, repo, default_branch, active, take_backlog, created_at, updated_at)
					VALUES ($1, $2, 'p', '/r', 'main', $3, $4, 0, 0)`, p.ID, p.Slug, p.Active, p.Agent.TakeBacklog)
				for _, tk := range g.tickets[p.ID] {
					exec(tx, `INSERT INTO tickets (id, project_id, number, title, state, sub_state, priority, created_at, updated_at)
						VALUES ($1, $2, $3, 't', $4, $5, $6, $7, $8)`, tk.ID, tk.ProjectID, tk.Number, string(tk.State),
						string(tk.SubState), tk.Priority, tk.CreatedAt.UnixMilli(), tk.UpdatedAt.UnixMilli())
					for _, c := range g.comments[tk.ID] {
						exec(tx, `INSERT INTO comments (id, ticket_id, author_type, kind, content, resolved, created_at)
							VALUES ($1, $2, $3, 'note', 'c', $4, $5)`, c.ID, c.TicketID, string(c.AuthorType), c.Resolved, c.CreatedAt.UnixMilli())
					}
				}
			}
		}
	})
	classes := map[board.PickClass]int{}
	compare := func(round string) {
		t.Helper()
		got, err := db.Pick(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]board.Pick{}
		for _, g := range gs {
			for slug, pk := range g.want() {
				want[slug] = pk
			}
		}
		all, err := db.Tickets(ctx, store.TicketFilter{})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]board.Ticket{}
		for _, tk := range all {
			byID[tk.ID] = tk
		}
		gotBy := map[string]board.Pick{}
		for _, pk := range got {
			gotBy[pk.Ticket.ProjectSlug] = pk
			// ticket_queue's copy of the ticket is the ticket as it is now
			if tk := byID[pk.Ticket.ID]; !reflect.DeepEqual(pk.Ticket, tk) {
				t.Errorf("%s: Pick returns %+v, the ticket is %+v", round, pk.Ticket, tk)
			}
		}
		if len(gotBy) != len(want) {
			t.Errorf("%s: Pick chose in %d projects, the policy in %d", round, len(gotBy), len(want))
		}
		for slug, w := range want {
			g, ok := gotBy[slug]
			if !ok || g.Ticket.Number != w.Ticket.Number || g.Class != w.Class {
				t.Errorf("%s: %s: Pick = #%d (%v), policy = #%d (%v)", round, slug, g.Ticket.Number, g.Class, w.Ticket.Number, w.Class)
			}
			classes[w.Class]++
		}
		ov, err := db.Overview(ctx, store.ProjectFilter{IncludeArchived: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range ov {
			w, ok := want[o.Project.Slug]
			if ok != (o.Pick != nil) || (ok && (o.Pick.Ticket.Number != w.Ticket.Number || o.Pick.Class != w.Class)) {
				t.Errorf("%s: Overview of %s picks %+v, policy %+v (%v)", round, o.Project.Slug, o.Pick, w, ok)
			}
		}
	}
	compare("as written")

	inTx(func(tx pgx.Tx) {
		for _, g := range gs { // in a fixed order, so the seed gives the same changes
			for _, p := range g.projects {
				for _, tk := range g.tickets[p.ID] {
					id, cs := tk.ID, g.comments[tk.ID]
					kept := cs[:0]
					for _, c := range cs {
						switch r.IntN(4) {
						case 0:
							c.Resolved = !c.Resolved
							exec(tx, `UPDATE comments SET resolved = $1 WHERE id = $2`, c.Resolved, c.ID)
						case 1:
							exec(tx, `DELETE FROM comments WHERE id = $1`, c.ID)
							continue
						}
						kept = append(kept, c)
					}
					g.comments[id] = kept
				}
			}
		}
	})
	compare("after comment changes")

	states := []board.State{board.Backlog, board.Research, board.InProgress, board.Verification, board.Done}
	subs := []board.SubState{board.SubNone, board.SubBlocked, board.SubReturned}
	inTx(func(tx pgx.Tx) {
		for _, g := range gs {
			for _, p := range g.projects {
				pid, ts := p.ID, g.tickets[p.ID]
				for i := range ts {
					tk := &ts[i]
					switch r.IntN(5) {
					case 0:
						tk.State = states[r.IntN(len(states))]
					case 1:
						tk.SubState = subs[r.IntN(len(subs))]
					case 2:
						tk.Priority = r.IntN(5)
					case 3:
						tk.UpdatedAt = policyTime(r)
					default:
						continue
					}
					exec(tx, `UPDATE tickets SET state = $1, sub_state = $2, priority = $3, updated_at = $4 WHERE id = $5`,
						string(tk.State), string(tk.SubState), tk.Priority, tk.UpdatedAt.UnixMilli(), tk.ID)
				}
				g.tickets[pid] = ts
			}
		}
	})
	compare("after ticket changes")

	inTx(func(tx pgx.Tx) {
		for _, g := range gs {
			for _, p := range g.projects {
				for _, tk := range g.tickets[p.ID] {
					if r.IntN(3) > 0 {
						continue
					}
					n := r.IntN(1000)
					exec(tx, `UPDATE tickets SET title = $1, description = $2, criteria = $3, plan = $4, branch = $5 WHERE id = $6`,
						fmt.Sprint("t", n), fmt.Sprint("d", n), fmt.Sprintf(`["c%d"]`, n), fmt.Sprint("p", n), fmt.Sprint("b", n), tk.ID)
				}
			}
		}
	})
	compare("after text changes")

	for c := board.ClassHumanReply; c <= board.ClassBacklog; c++ {
		if classes[c] < 20 {
			t.Errorf("class %v picked %d times: too few for the comparison to mean much", c, classes[c])
		}
	}
}
