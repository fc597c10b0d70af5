package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TicketCounts counts tickets per project slug and state, archived projects
// included; states without tickets are absent, and so are projects without
// tickets. It reads Dialect.CountsQuery: ticket_counts, which triggers on
// tickets keep exact, as a row per project rather than a row per ticket.
func (db *DB) TicketCounts(ctx context.Context) (map[string]map[board.State]int, error) {
	rows, err := db.queryContext(ctx, db.d.CountsQuery)
	if err != nil {
		return nil, fmt.Errorf("count tickets: %w", err)
	}
	defer rows.Close()
	out := map[string]map[board.State]int{}
	var slug, pairs string
	for rows.Next() {
		if err := rows.Scan(&slug, &pairs); err != nil {
			return nil, fmt.Errorf("count tickets: %w", err)
		}
		counts, err := ParseCounts(pairs)
		if err != nil {
			return nil, fmt.Errorf("count tickets: project %s: %w", slug, err)
		}
		out[slug] = counts
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count tickets: %w", err)
	}
	return out, nil
}

// ParseCounts reads a project's ticket counts written as "STATE n" pairs
// joined by commas, as Dialect.CountsQuery and SQLite's overview give
// them.
func ParseCounts(pairs string) (map[board.State]int, error) {
	counts := make(map[board.State]int, len(board.States))
	if pairs == "" {
		return counts, nil
	}
	for pair := range strings.SplitSeq(pairs, ",") {
		state, n, ok := strings.Cut(pair, " ")
		v, err := strconv.Atoi(n)
		if !ok || err != nil {
			return nil, fmt.Errorf("malformed count %q", pair)
		}
		counts[board.State(state)] = v
	}
	return counts, nil
}
