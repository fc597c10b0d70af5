package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestDueSchedules_UsesIndex guards the idle beat's cost: the due
// schedules are a range of the partial schedules_due index, never a scan
// of every schedule.
func TestDueSchedules_UsesIndex(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	plan := queryPlan(t, db, db.DueQuery(), 0)
	if !strings.Contains(plan, "USING INDEX schedules_due (next_fire>? AND next_fire<?)") || strings.Contains(plan, "SCAN s") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("plan of the due query:\n%s", plan)
	}
}

// BenchmarkDueSchedules_Idle is the idle beat's schedule query over 1,000
// schedules, none due.
func BenchmarkDueSchedules_Idle(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "bonsai.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/src/demo", DefaultBranch: "main"}); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	for i := range 1000 {
		_, err := db.CreateSchedule(ctx, board.Schedule{ProjectSlug: "demo", Name: fmt.Sprintf("s%d", i), Kind: "cron", Expr: "@daily",
			TimeZone: "UTC", Title: "t", Priority: 2, NextFire: now.Add(time.Duration(i+1) * time.Hour)}, board.Human)
		if err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if due, err := db.DueSchedules(ctx, now); err != nil || len(due) != 0 {
			b.Fatal(due, err)
		}
	}
}
