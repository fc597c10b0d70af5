package sqlite

import (
	"strings"
	"testing"
)

// TestDueSchedules_UsesIndex guards the idle beat's cost: the due
// schedules are a range of the partial schedules_due index, never a scan
// of every schedule.
func TestDueSchedules_UsesIndex(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	plan := queryPlan(t, db, dueQuery, 0)
	if !strings.Contains(plan, "USING INDEX schedules_due (next_fire>? AND next_fire<?)") || strings.Contains(plan, "SCAN s") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("plan of the due query:\n%s", plan)
	}
}
