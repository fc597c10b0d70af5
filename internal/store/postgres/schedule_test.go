package postgres

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// TestDueSchedules_UsesIndex guards the idle beat's cost: over 1,000
// schedules, none due, the due query reads a range of the partial
// schedules_due index and never scans the schedules.
func TestDueSchedules_UsesIndex(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, err := Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/src/demo", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	_, err = db.pool.Exec(ctx, `INSERT INTO schedules (id, project_id, name, kind, expr, timezone, title, priority,
		start_state, next_fire, created_by, created_at, updated_at)
		SELECT 's' || i, p.id, 's' || i, 'cron', '@daily', 'UTC', 't', 2, 'BACKLOG', $1::bigint + i::bigint * 3600000, 'human', 0, 0
		FROM generate_series(1, 1000) i, projects p`, now.UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `ANALYZE schedules`); err != nil {
		t.Fatal(err)
	}
	if due, err := db.DueSchedules(ctx, now); err != nil || len(due) != 0 {
		t.Fatalf("DueSchedules = %v, %v; want none", due, err)
	}
	rows, err := db.pool.Query(ctx, `EXPLAIN `+rebind(db.DueQuery()), now.UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	p := plan.String()
	if !strings.Contains(p, "Index Scan using schedules_due on schedules") || strings.Contains(p, "Seq Scan on schedules") {
		t.Errorf("plan of the due query:\n%s", p)
	}
}
