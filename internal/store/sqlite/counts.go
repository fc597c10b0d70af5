package sqlite

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// countsQuery reads the ticket_counts table, which triggers on tickets keep
// exact (migration 0002), as one row per project: "STATE n" pairs joined by
// commas. Reading five states per row instead of a row per project and state
// halves the method's cost, most of which is the driver's work per row. The
// projects are scanned in rowid order, so the grouping needs no sort.
const countsQuery = `
	SELECT p.slug, group_concat(c.state || ' ' || c.n)
	FROM projects p CROSS JOIN ticket_counts c ON c.project_id = p.id
	WHERE c.n > 0
	GROUP BY p.rowid`

// TicketCounts counts tickets per project slug and state, archived projects
// included; states without tickets are absent, and so are projects without
// tickets. It costs a row per project rather than a row per ticket.
func (db *DB) TicketCounts(ctx context.Context) (map[string]map[board.State]int, error) {
	rows, err := db.sql.QueryContext(ctx, countsQuery)
	if err != nil {
		return nil, fmt.Errorf("count tickets: %w", err)
	}
	defer rows.Close()
	out := map[string]map[board.State]int{}
	for rows.Next() {
		var slug, pairs string
		if err := rows.Scan(&slug, &pairs); err != nil {
			return nil, fmt.Errorf("count tickets: %w", err)
		}
		counts, err := parseCounts(pairs)
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

// parseCounts reads the "STATE n" pairs, joined by commas, of countsQuery
// and overviewQuery.
func parseCounts(pairs string) (map[board.State]int, error) {
	counts := make(map[board.State]int, 5)
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
