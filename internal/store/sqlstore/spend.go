package sqlstore

import (
	"context"
	"time"

	"github.com/bonsai-run/bonsai/internal/store"
)

// Spend sums the tokens and cost of the project's runs (or, for an empty
// slug, every run) started at or after since. It reads one range of the
// runs_project (or runs_started) index.
func (db *DB) Spend(ctx context.Context, projectSlug string, since time.Time) (store.Spend, error) {
	q := `SELECT count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),
		coalesce(sum(cache_read_tokens), 0), coalesce(sum(cache_write_tokens), 0), coalesce(sum(cost_usd), 0)
		FROM runs WHERE started_at >= ?`
	args := []any{since.UnixMilli()}
	if projectSlug != "" {
		p, err := getProject(ctx, db, projectSlug)
		if err != nil {
			return store.Spend{}, err
		}
		q, args = q+` AND project_id = ?`, append(args, p.ID)
	}
	var s store.Spend
	err := db.queryRowContext(ctx, q, args...).
		Scan(&s.Runs, &s.InputTokens, &s.OutputTokens, &s.CacheReadTokens, &s.CacheWriteTokens, &s.CostUSD)
	return result(s, wrap(err, "sum the spend since %s", since.Format(time.RFC3339)))
}
