package insightsbench

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/google/uuid"

	_ "modernc.org/sqlite" // the driver bench/store's seed writes with
)

// models and engines the projects use, one pair a project in turn.
var (
	models  = []string{"anthropic/claude-sonnet-4-5", "openai/gpt-5", "deepseek/deepseek-chat", ""}
	engines = []string{"", "claude-code", "codex", ""}
	reasons = []string{"the model's API answered 529 overloaded", "go test ./... failed: 3 tests", "the sandbox ran out of disk",
		"context window exceeded after compaction"}
)

// Fill adds to the seeded SQLite board at path what the insights read,
// until it has runs runs: each project a model, an engine and a daily
// budget; each DONE ticket a move to DONE, a landing for half of them,
// a return for a quarter and a question for some; runs spread over the
// tickets that were worked, most completed, some failed or stopped.
func Fill(ctx context.Context, path string, runs int, seed uint64) error {
	db, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rng := rand.New(rand.NewPCG(seed, 0x1a5))
	if err := settings(ctx, tx); err != nil {
		return fmt.Errorf("project settings: %w", err)
	}
	ts, err := worked(ctx, tx)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := t.history(ctx, tx, rng); err != nil {
			return fmt.Errorf("ticket %s: %w", t.id, err)
		}
	}
	var have int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&have); err != nil {
		return err
	}
	for i := have; i < runs; i++ {
		if err := ts[rng.IntN(len(ts))].run(ctx, tx, rng); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func settings(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, settings FROM projects ORDER BY slug`)
	if err != nil {
		return err
	}
	type proj struct{ id, settings string }
	var ps []proj
	for rows.Next() {
		var p proj
		if err := rows.Scan(&p.id, &p.settings); err != nil {
			return err
		}
		ps = append(ps, p)
	}
	rows.Close()
	for i, p := range ps {
		m := map[string]any{}
		if err := json.Unmarshal([]byte(p.settings), &m); err != nil {
			return err
		}
		m["model"], m["engine"], m["dailyBudgetUsd"] = models[i%len(models)], engines[i%len(engines)], float64(5+i)
		raw, _ := json.Marshal(m)
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET settings = ? WHERE id = ?`, string(raw), p.id); err != nil {
			return err
		}
	}
	return nil
}

// ticket is a seeded ticket that agents worked.
type ticket struct {
	id, project, state string
	number             int
	created, updated   int64
}

func worked(ctx context.Context, tx *sql.Tx) ([]ticket, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, project_id, number, state, created_at, updated_at FROM tickets
		WHERE state <> 'BACKLOG' ORDER BY project_id, number`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ts []ticket
	for rows.Next() {
		var t ticket
		if err := rows.Scan(&t.id, &t.project, &t.number, &t.state, &t.created, &t.updated); err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, rows.Err()
}

const hour = int64(3_600_000)

// history writes a DONE ticket's move, landing, return and question.
func (t ticket) history(ctx context.Context, tx *sql.Tx, rng *rand.Rand) error {
	if t.state != "DONE" {
		return nil
	}
	data := fmt.Sprintf(`{"from":"VERIFICATION","ref":"x#%d","subState":"","to":"DONE"}`, t.number)
	if _, err := tx.ExecContext(ctx, `INSERT INTO events (type, project_id, ticket_id, actor, data, created_at)
		VALUES ('ticket.moved', ?, ?, 'human', ?, ?)`, t.project, t.id, data, t.updated); err != nil {
		return err
	}
	if rng.IntN(2) == 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO landings (ticket_id, project_id, mode, landed_commit, landed_at, updated_at)
			VALUES (?, ?, 'merge', ?, ?, ?)`, t.id, t.project, fmt.Sprintf("%040x", rng.Uint64()), t.updated-60_000, t.updated); err != nil {
			return err
		}
	}
	comment := func(author, kind string, at int64) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO comments (id, ticket_id, author_type, author_name, kind, content, resolved, created_at)
			VALUES (?, ?, ?, 'bench', ?, 'A comment.', 1, ?)`, uuid.Must(uuid.NewV7()).String(), t.id, author, kind, at)
		return err
	}
	if rng.IntN(4) == 0 {
		if err := comment("human", "feedback", t.updated-3*hour); err != nil {
			return err
		}
	}
	if rng.IntN(6) == 0 {
		return comment("agent", "question", t.updated-5*hour)
	}
	return nil
}

// run writes one more finished run of the ticket, before its last update.
func (t ticket) run(ctx context.Context, tx *sql.Tx, rng *rand.Rand) error {
	status, errText := "completed", ""
	switch x := rng.IntN(100); {
	case x < 6:
		status, errText = "error", reasons[rng.IntN(len(reasons))]
	case x < 8:
		status, errText = "timeout", "the run took longer than 30m0s"
	case x < 10:
		status = "stopped"
	case x < 11:
		status, errText = "budget_exceeded", "the ticket's budget of $5.00 is spent"
	}
	span := max(hour, t.updated-t.created)
	started := t.updated - rng.Int64N(span)
	_, err := tx.ExecContext(ctx, `INSERT INTO runs (id, ticket_id, ticket_number, project_id, task, status, session_key,
		started_at, finished_at, input_tokens, output_tokens, cache_read_tokens, cost_usd, error)
		VALUES (?, ?, ?, ?, 'implement', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		uuid.Must(uuid.NewV7()).String(), t.id, t.number, t.project, status, "bonsai:"+t.project+":ticket:"+t.id,
		started, started+600_000, 20_000+rng.IntN(100_000), 1_000+rng.IntN(10_000), rng.IntN(400_000), rng.Float64()*0.8, errText)
	return err
}
