package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// renewOwnLease moves worker's lease on the ticket to expires and returns
// it; a lease of another worker on it, live or expired, is ECONFLICT
// (never two runs of one ticket), and no lease returns a zero Lease.
func (t *tx) renewOwnLease(ticketID, worker string, expires time.Time) (board.Lease, error) {
	old, err := store.ScanLease(t.queryRow(`SELECT `+store.LeaseColumns+store.LeaseFrom+` WHERE l.ticket_id = ?`, ticketID))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return board.Lease{}, nil
	case err != nil:
		return board.Lease{}, err
	case old.Worker != worker:
		return board.Lease{}, leaseHeld(old, t.now)
	}
	if _, err := t.exec(`UPDATE leases SET expires_at = ? WHERE ticket_id = ?`, expires.UnixMilli(), ticketID); err != nil {
		return board.Lease{}, err
	}
	old.ExpiresAt = expires
	return old, nil
}

// leaseRoom says whether one more lease fits in the ticket's project, at
// most its max-agents setting (board.AgentSettings.Agents; an expired
// lease counts until ExpireLeases ends it), and across the board, at
// most limit when above 0. A full one is ECONFLICT naming the holders.
func (db *DB) leaseRoom(t *tx, ref board.Ref, projectID string, limit int) error {
	p, err := getProject(t.ctx, t, ref.Project)
	if err != nil {
		return err
	}
	rows, err := t.queryContext(t.ctx, `SELECT `+store.LeaseColumns+store.LeaseFrom+` WHERE l.project_id = ? ORDER BY t.number`, projectID)
	if err != nil {
		return err
	}
	held, err := collect(rows, store.ScanLease)
	if err != nil {
		return err
	}
	if max := p.Agent.Agents(); len(held) >= max {
		return projectFull(ref.Project, max, held, t.now)
	}
	if limit > 0 {
		var n int
		if err := t.queryRow(`SELECT count(*) FROM leases`).Scan(&n); err != nil {
			return err
		}
		if n >= limit {
			return board.Errorf(board.ECONFLICT, "%d agents already run, the limit", n)
		}
	}
	return nil
}

// projectFull says that a project's max leases are held: by whom, and
// when one of them expired, that the next beat ends it.
func projectFull(slug string, max int, held []board.Lease, now time.Time) error {
	for _, l := range held {
		if !l.ExpiresAt.After(now) {
			return leaseHeld(l, now)
		}
	}
	if max == 1 {
		l := held[0]
		return board.Errorf(board.ECONFLICT, "project %s already has an agent: %s holds %s until %s",
			slug, l.Worker, l.Ref, l.ExpiresAt.Format(time.RFC3339))
	}
	who := make([]string, len(held))
	for i, l := range held {
		who[i] = fmt.Sprintf("%s holds %s", l.Worker, l.Ref)
	}
	return board.Errorf(board.ECONFLICT, "project %s already has its %d agents (max-agents %d): %s",
		slug, len(held), max, strings.Join(who, ", "))
}

// leaseHeld is ECONFLICT for a lease another worker holds, or held: an
// expired one waits for the next beat's ExpireLeases.
func leaseHeld(l board.Lease, now time.Time) error {
	if !l.ExpiresAt.After(now) {
		return board.Errorf(board.ECONFLICT, "%s's lease on %s expired at %s; the next beat ends it and its run",
			l.Worker, l.Ref, l.ExpiresAt.Format(time.RFC3339))
	}
	return board.Errorf(board.ECONFLICT, "%s holds %s until %s", l.Worker, l.Ref, l.ExpiresAt.Format(time.RFC3339))
}
