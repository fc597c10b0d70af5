package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/store"
)

// dayMillis is one day in milliseconds: integer division by it gives a
// timestamp's UTC day on both engines.
const dayMillis = int64(24 * time.Hour / time.Millisecond)

// runSums count a set of runs and sum their usage, in store.Usage's order.
const runSums = `count(*) AS n, sum(input_tokens) AS inp, sum(output_tokens) AS outp,
	sum(cache_read_tokens) AS cr, sum(cache_write_tokens) AS cw, sum(reasoning_tokens) AS rt, sum(cost_usd) AS usd`

// StatsFacts reads the facts of issue 32's insights in three aggregate
// queries: the landed tickets with their runs' sums, returns and
// questions; the runs' spend per project and day; and the runs that
// failed or were stopped, counted by status and error.
func (db *DB) StatsFacts(ctx context.Context, f store.StatsFilter) (store.StatsFacts, error) {
	var out store.StatsFacts
	projectID := ""
	if f.ProjectSlug != "" {
		p, err := getProject(ctx, db, f.ProjectSlug)
		if err != nil {
			return out, err
		}
		projectID = p.ID
	}
	since := int64(0)
	if !f.Since.IsZero() {
		since = f.Since.UnixMilli()
	}
	var err error
	if out.Landed, err = db.landedTickets(ctx, projectID, since); err != nil {
		return out, fmt.Errorf("read the landed tickets: %w", err)
	}
	if out.Days, err = db.daySpend(ctx, projectID, since); err != nil {
		return out, fmt.Errorf("read the spend per day: %w", err)
	}
	if out.Endings, err = db.runEndings(ctx, projectID, since); err != nil {
		return out, fmt.Errorf("read the failed and stopped runs: %w", err)
	}
	return out, nil
}

// landedQuery reads each DONE ticket that landed at or after since (the
// CTE), then its runs' sums through the runs_ticket index, its returns and
// its questions: a short period reads only its tickets' runs. The move to
// DONE is found in the event log by its data's text, which the store
// writes as compact JSON.
const landedQuery = `WITH landed AS (
	SELECT t.id, t.project_id, t.number, t.title, coalesce(l.landed_at, m.at, t.updated_at) AS at
	FROM tickets t
	LEFT JOIN landings l ON l.ticket_id = t.id
	LEFT JOIN (SELECT ticket_id, max(created_at) AS at FROM events
		WHERE type = 'ticket.moved' AND CAST(data AS TEXT) LIKE '%%"to":"DONE"%%' GROUP BY ticket_id) m ON m.ticket_id = t.id
	WHERE t.state = 'DONE' AND coalesce(l.landed_at, m.at, t.updated_at) >= ? %s)
SELECT p.slug, d.number, d.title, d.at, r.first, coalesce(r.n, 0), coalesce(r.inp, 0), coalesce(r.outp, 0),
	coalesce(r.cr, 0), coalesce(r.cw, 0), coalesce(r.rt, 0), coalesce(r.usd, 0), coalesce(r.turns, 0),
	coalesce((SELECT model || ' ' || engine FROM runs x WHERE x.ticket_id = d.id AND x.model <> ''
		ORDER BY x.started_at DESC LIMIT 1), ''),
	(SELECT count(*) FROM comments c WHERE c.ticket_id = d.id AND c.kind = 'feedback'),
	(SELECT count(*) FROM comments c WHERE c.ticket_id = d.id AND c.kind = 'question' AND c.author_type = 'agent')
FROM landed d
JOIN projects p ON p.id = d.project_id
LEFT JOIN (SELECT ticket_id, min(started_at) AS first, sum(turns) AS turns, ` + runSums + `
	FROM runs WHERE ticket_id IN (SELECT id FROM landed) GROUP BY ticket_id) r ON r.ticket_id = d.id
ORDER BY p.slug, d.number`

func (db *DB) landedTickets(ctx context.Context, projectID string, since int64) ([]store.LandedTicket, error) {
	ticketsWhere, args := "", []any{since}
	if projectID != "" {
		ticketsWhere, args = "AND t.project_id = ?", []any{since, projectID}
	}
	return list(ctx, db, scanLanded, fmt.Sprintf(landedQuery, ticketsWhere), args...)
}

func scanLanded(s scanner) (store.LandedTicket, error) {
	var lt store.LandedTicket
	var ran string
	err := s.Scan(&lt.ProjectSlug, &lt.Number, &lt.Title, ms{&lt.LandedAt}, ms{&lt.FirstRunAt}, &lt.Runs,
		&lt.InputTokens, &lt.OutputTokens, &lt.CacheReadTokens, &lt.CacheWriteTokens, &lt.ReasoningTokens, &lt.CostUSD,
		&lt.Turns, &ran, &lt.Returns, &lt.Questions)
	// A model id has no spaces; the engine's name follows the last one.
	if i := strings.LastIndexByte(ran, ' '); i >= 0 {
		lt.Model, lt.Engine = ran[:i], ran[i+1:]
	}
	return lt, err
}

func (db *DB) daySpend(ctx context.Context, projectID string, since int64) ([]store.DaySpend, error) {
	where, args := runsWhere(since, projectID)
	q := fmt.Sprintf(`SELECT p.slug, d.model, d.engine, d.day, d.n, d.inp, d.outp, d.cr, d.cw, d.rt, d.usd FROM (
		SELECT project_id, model, engine, started_at / %d AS day, %s
		FROM runs %s GROUP BY project_id, model, engine, started_at / %d) d
		JOIN projects p ON p.id = d.project_id ORDER BY p.slug, d.day, d.model, d.engine`,
		dayMillis, runSums, where, dayMillis)
	return list(ctx, db, scanDaySpend, q, args...)
}

func scanDaySpend(s scanner) (store.DaySpend, error) {
	var d store.DaySpend
	var day int64
	err := s.Scan(&d.ProjectSlug, &d.Model, &d.Engine, &day, &d.Runs, &d.InputTokens, &d.OutputTokens,
		&d.CacheReadTokens, &d.CacheWriteTokens, &d.ReasoningTokens, &d.CostUSD)
	d.Day = fromMillis(day * dayMillis)
	return d, err
}

func (db *DB) runEndings(ctx context.Context, projectID string, since int64) ([]store.RunEnding, error) {
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(store.EndingStatuses)), ", ")
	args := []any{}
	for _, s := range store.EndingStatuses {
		args = append(args, string(s))
	}
	// Grouped by status first, so SQLite does not read the runs in
	// project order through an index.
	where, more := runsWhere(since, projectID, "status IN ("+marks+")")
	q := `SELECT p.slug, e.status, e.error, e.n, e.last FROM (
		SELECT project_id, status, error, count(*) AS n, max(started_at) AS last
		FROM runs ` + where + ` GROUP BY status, error, project_id) e
		JOIN projects p ON p.id = e.project_id ORDER BY p.slug, e.status, e.error`
	args = append(args, more...)
	return list(ctx, db, scanEnding, q, args...)
}

func scanEnding(s scanner) (store.RunEnding, error) {
	var e store.RunEnding
	err := s.Scan(&e.ProjectSlug, &e.Status, &e.Error, &e.Runs, ms{&e.Last})
	return e, err
}

// runsWhere is the WHERE clause of a runs query over runs started at or
// after since (a whole history when 0: no condition, so SQLite scans the
// table rather than an index with a lookup a row) in one project when
// projectID is set, with more conditions, and its arguments.
func runsWhere(since int64, projectID string, more ...string) (string, []any) {
	conds, args := more, []any{}
	if since > 0 {
		conds, args = append(conds, "started_at >= ?"), append(args, since)
	}
	if projectID != "" {
		conds, args = append(conds, "project_id = ?"), append(args, projectID)
	}
	if len(conds) == 0 {
		return "", args
	}
	return "WHERE " + strings.Join(conds, " AND "), args
}

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
