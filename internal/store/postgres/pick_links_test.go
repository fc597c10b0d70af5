package postgres

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// policyLink is one row of ticket_links of a generated board.
type policyLink struct {
	ticket, other string
	kind          board.LinkKind
}

// wantLinked is policyBoard.want where a ticket whose blocker or
// sub-ticket is not DONE waits.
func (g policyBoard) wantLinked(links map[policyLink]bool) map[string]board.Pick {
	state := map[string]board.State{}
	for _, ts := range g.tickets {
		for _, tk := range ts {
			state[tk.ID] = tk.State
		}
	}
	waiting := map[string]bool{}
	for l := range links {
		if l.kind == board.LinkBlockedBy && state[l.other] != "" && state[l.other] != board.Done {
			waiting[l.ticket] = true
		}
		if l.kind == board.LinkParent && state[l.ticket] != "" && state[l.ticket] != board.Done {
			waiting[l.other] = true
		}
	}
	return g.wantWaiting(waiting)
}

// TestPick_AgreesWithPolicyOverLinks compares Pick with board.PickTicket
// on random boards with blockers and sub-tickets, after links are added
// and removed, tickets others wait for move between VERIFICATION and DONE
// (neither pickable: only the links' trigger sees it) and tickets are
// deleted with their links.
func TestPick_AgreesWithPolicyOverLinks(t *testing.T) {
	ctx := t.Context()
	db, err := Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(31, 2026))
	gs := make([]policyBoard, 120)
	for i := range gs {
		gs[i] = genPolicyBoard(r, i)
	}
	inTx := func(fn func(tx pgx.Tx)) {
		t.Helper()
		if err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error { fn(tx); return nil }); err != nil {
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
	links := map[policyLink]bool{}
	changed := 0
	compare := func(round string) {
		t.Helper()
		got, err := db.Pick(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		gotBy := map[string]board.Pick{}
		for _, pk := range got {
			gotBy[pk.Ticket.ProjectSlug] = pk
		}
		n := 0
		for _, g := range gs {
			plain := g.want()
			for slug, w := range g.wantLinked(links) {
				n++
				if pg, ok := gotBy[slug]; !ok || pg.Ticket.Number != w.Ticket.Number || pg.Class != w.Class {
					t.Errorf("%s: %s: Pick = #%d (%v), policy = #%d (%v)", round, slug, pg.Ticket.Number, pg.Class, w.Ticket.Number, w.Class)
				}
				if plain[slug].Ticket.ID != w.Ticket.ID {
					changed++
				}
			}
			for slug := range plain {
				if _, ok := g.wantLinked(links)[slug]; !ok {
					changed++
				}
			}
		}
		if len(got) != n {
			t.Errorf("%s: Pick chose in %d projects, the policy in %d", round, len(got), n)
		}
	}
	for round := range 3 {
		inTx(func(tx pgx.Tx) { // link and unlink
			for l := range links {
				if r.IntN(3) == 0 {
					exec(tx, `DELETE FROM ticket_links WHERE ticket_id = $1 AND other_id = $2 AND kind = $3`, l.ticket, l.other, string(l.kind))
					delete(links, l)
				}
			}
			hasParent := map[string]bool{}
			for l := range links {
				hasParent[l.ticket] = hasParent[l.ticket] || l.kind == board.LinkParent
			}
			for _, g := range gs {
				for _, p := range g.projects {
					ts := g.tickets[p.ID]
					for range min(len(ts), r.IntN(4)) {
						l := policyLink{ts[r.IntN(len(ts))].ID, ts[r.IntN(len(ts))].ID, board.LinkBlockedBy}
						if r.IntN(3) == 0 {
							l.kind = board.LinkParent
						}
						if l.ticket == l.other || links[l] || l.kind == board.LinkParent && hasParent[l.ticket] {
							continue
						}
						exec(tx, `INSERT INTO ticket_links (ticket_id, other_id, kind, created_at) VALUES ($1, $2, $3, 0)`, l.ticket, l.other, string(l.kind))
						links[l] = true
						hasParent[l.ticket] = hasParent[l.ticket] || l.kind == board.LinkParent
					}
				}
			}
		})
		compare(fmt.Sprint("after linking, round ", round+1))
		waitedFor := map[string]bool{}
		for l := range links {
			waitedFor[map[bool]string{true: l.other, false: l.ticket}[l.kind == board.LinkBlockedBy]] = true
		}
		inTx(func(tx pgx.Tx) { // blockers and sub-tickets between VERIFICATION and DONE
			for _, g := range gs {
				for _, p := range g.projects {
					ts := g.tickets[p.ID]
					for i := range ts {
						if waitedFor[ts[i].ID] && r.IntN(2) == 0 {
							ts[i].State = map[bool]board.State{true: board.Verification, false: board.Done}[ts[i].State == board.Done]
							exec(tx, `UPDATE tickets SET state = $1 WHERE id = $2`, string(ts[i].State), ts[i].ID)
						}
					}
				}
			}
		})
		compare(fmt.Sprint("after finishing, round ", round+1))
		inTx(func(tx pgx.Tx) { // deletions take their links along
			for _, g := range gs {
				for _, p := range g.projects {
					kept := g.tickets[p.ID][:0]
					for _, tk := range g.tickets[p.ID] {
						if r.IntN(8) > 0 {
							kept = append(kept, tk)
							continue
						}
						exec(tx, `DELETE FROM comments WHERE ticket_id = $1`, tk.ID)
						exec(tx, `DELETE FROM tickets WHERE id = $1`, tk.ID)
						delete(g.comments, tk.ID)
						for l := range links {
							if l.ticket == tk.ID || l.other == tk.ID {
								delete(links, l)
							}
						}
					}
					g.tickets[p.ID] = kept
				}
			}
		})
		compare(fmt.Sprint("after deleting, round ", round+1))
	}
	if changed < len(gs)/3 {
		t.Errorf("links changed the pick %d times: too few for the comparison to mean much", changed)
	}
	t.Logf("links changed the pick %d times", changed)
}
