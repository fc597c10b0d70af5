package sqlite

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TicketCounts counts tickets per project slug and state, archived projects
// included; states without tickets are absent. It reads the ticket_counts
// table, which triggers on tickets keep exact (migration 0002), so it costs
// a row per project and state rather than a row per ticket.
func (db *DB) TicketCounts(ctx context.Context) (map[string]map[board.State]int, error) {
	rows, err := db.sql.QueryContext(ctx, `
		SELECT p.slug, c.state, c.n
		FROM ticket_counts c JOIN projects p ON p.id = c.project_id
		WHERE c.n > 0`)
	if err != nil {
		return nil, fmt.Errorf("count tickets: %w", err)
	}
	defer rows.Close()
	out := map[string]map[board.State]int{}
	for rows.Next() {
		var (
			slug  string
			state board.State
			n     int
		)
		if err := rows.Scan(&slug, &state, &n); err != nil {
			return nil, fmt.Errorf("count tickets: %w", err)
		}
		if out[slug] == nil {
			out[slug] = map[board.State]int{}
		}
		out[slug][state] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count tickets: %w", err)
	}
	return out, nil
}
