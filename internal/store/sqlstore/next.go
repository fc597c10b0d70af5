package sqlstore

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// nextPicksQuery reads a project's pickable tickets in the pick policy's
// order (the tickets_pick index: class, priority, the class's key,
// number), leaving out the tickets a worker holds the lease of or a run
// still works: the tickets a beat may start beside what already runs,
// for a project whose agents work several at once (board.AgentSettings.
// MaxAgents). Its filter is nextPickable; the BACKLOG class counts only
// where the project takes its backlog, as in Pick.
var nextPicksQuery = `SELECT ` + TicketColumns + `, t.queue_class` + ticketFrom + `
	WHERE p.slug = ? AND p.active = ? AND ` + nextPickable + `
	ORDER BY t.queue_class, t.priority, t.queue_key, t.number
	LIMIT ?`

// nextPickable is what NextPicks asks of a ticket t of project p: a
// class of the pick policy, no lease, no running run, and nextUnblocked.
var nextPickable = `t.queue_class > 0 AND (t.queue_class < 5 OR p.take_backlog = ?)
	AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.ticket_id = t.id)
	AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.ticket_id = t.id AND r.status = 'running')` + nextUnblocked

// nextUnblocked is the rule that a ticket waiting on another ticket (a
// blocker or a sub-ticket not DONE) is not picked, the one NotWaiting
// the queue's triggers apply too.
var nextUnblocked = ` AND ` + NotWaiting("t")

// NextPicks returns up to n tickets of the active project slug in the
// pick policy's order, with their pick classes, leaving out those leased
// or with a running run; see store.Store. An unknown project is
// ENOTFOUND; an archived one has none.
func (db *DB) NextPicks(ctx context.Context, projectSlug string, n int) ([]board.Pick, error) {
	if _, err := getProject(ctx, db, projectSlug); err != nil {
		return nil, err
	}
	if n < 1 {
		return []board.Pick{}, nil
	}
	picks, err := list(ctx, db, scanPick, nextPicksQuery, projectSlug, true, true, n)
	return result(picks, wrap(err, "next picks of %s", projectSlug))
}
