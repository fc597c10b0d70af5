package sqlite

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TicketCounts counts tickets per project slug and state.
func (db *DB) TicketCounts(ctx context.Context) (map[string]map[board.State]int, error) {
	rows, err := db.sql.QueryContext(ctx, `
		SELECT p.slug, t.state, count(*)
		FROM tickets t JOIN projects p ON p.id = t.project_id
		GROUP BY t.project_id, t.state`)
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
	return out, rows.Err()
}
