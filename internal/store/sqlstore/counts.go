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
	out := map[string]map[board.State]int{}
	var slug, pairs string
	err := each(ctx, db, func(s scanner) error {
		if err := s.Scan(&slug, &pairs); err != nil {
			return err
		}
		counts, err := parseCounts(pairs)
		if err != nil {
			return fmt.Errorf("project %s: %w", slug, err)
		}
		out[slug] = counts
		return nil
	}, db.d.CountsQuery)
	return result(out, wrap(err, "count tickets"))
}

// parseCounts reads a project's ticket counts written as "STATE n" pairs
// joined by commas, as Dialect.CountsQuery and OverviewQuery give them.
func parseCounts(pairs string) (map[board.State]int, error) {
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
