package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/store"
)

// Spend sums the tokens and cost of the project's runs started at or after
// since. It reads the runs_project index: one range of one project.
func (db *DB) Spend(ctx context.Context, projectSlug string, since time.Time) (store.Spend, error) {
	p, err := getProject(ctx, db.sql, projectSlug)
	if err != nil {
		return store.Spend{}, err
	}
	var s store.Spend
	err = db.sql.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),
		coalesce(sum(cache_read_tokens), 0), coalesce(sum(cache_write_tokens), 0), coalesce(sum(cost_usd), 0)
		FROM runs WHERE project_id = ? AND started_at >= ?`, p.ID, since.UnixMilli()).
		Scan(&s.Runs, &s.InputTokens, &s.OutputTokens, &s.CacheReadTokens, &s.CacheWriteTokens, &s.CostUSD)
	if err != nil {
		return store.Spend{}, fmt.Errorf("sum the spend of %s: %w", projectSlug, err)
	}
	return s, nil
}
