package sqlite

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// pickQuery reads, for each active project, its row of ticket_queue (the
// ticket the pick policy chooses there, kept by the triggers of migrations
// 0005 and 0007) and that ticket by rowid. See docs/store.md.
const pickQuery = `SELECT ` + sqlstore.TicketColumns + `, q.pick_class
	FROM projects p
	JOIN ticket_queue q ON q.project_id = p.id AND ` + queueAllowed + `
	JOIN tickets t ON t.rowid = q.ticket
	WHERE p.active = 1 AND (?1 = '' OR p.slug = ?1)
	ORDER BY p.slug`

// queueAllowed keeps a ticket_queue row q of project p unless it is a
// BACKLOG ticket (class 5, board.ClassBacklog) and p's agents do not take
// BACKLOG tickets: ticket_queue holds them for every project.
const queueAllowed = `(q.pick_class < 5 OR p.take_backlog = 1)`

// Pick returns, for each active project (or only the named one), the ticket
// the pick policy chooses, by project slug. Projects with nothing to pick
// are left out; so is a named project that is archived. It agrees with
// board.PickTicket.
func (db *DB) Pick(ctx context.Context, projectSlug string) ([]board.Pick, error) {
	if projectSlug != "" {
		if _, err := db.Project(ctx, projectSlug); err != nil {
			return nil, err
		}
	}
	st, err := db.prepared(ctx, pickQuery)
	if err != nil {
		return nil, fmt.Errorf("pick: %w", err)
	}
	rows, err := st.QueryContext(ctx, projectSlug)
	if err != nil {
		return nil, fmt.Errorf("pick: %w", err)
	}
	defer rows.Close()
	picks := []board.Pick{}
	for rows.Next() {
		var p board.Pick
		if p.Ticket, err = sqlstore.ScanTicket(rows, &p.Class); err != nil {
			return nil, fmt.Errorf("pick: %w", err)
		}
		picks = append(picks, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pick: %w", err)
	}
	return picks, nil
}
