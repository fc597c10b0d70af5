package heartbeat_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// noRuns is a board on which the ticket never gets a run.
type noRuns struct{}

func (noRuns) Runs(context.Context, board.Ref) ([]board.Run, error) { return nil, nil }

// TestStartRunNow_BeatThatRanNothingSaysWhy: a Run now beat that exits
// without a run is a refusal carrying its own error line, and its output
// is kept in the logs directory.
func TestStartRunNow_BeatThatRanNothingSaysWhy(t *testing.T) {
	t.Parallel()
	logs := filepath.Join(t.TempDir(), "logs")
	ref := board.Ref{Project: "demo", Number: 3}
	beat := exec.Command("sh", "-c", `echo "Nothing to do"; echo "bonsai: demo#3 cannot run now: it is blocked" >&2; exit 4`)
	_, err := heartbeat.StartRunNow(context.Background(), beat, logs, noRuns{}, ref)
	if board.ErrorCode(err) != board.EREFUSED || !strings.HasSuffix(err.Error(), "demo#3 cannot run now: it is blocked") {
		t.Fatalf("err = %v, want the beat's refusal", err)
	}
	if _, err := exec.Command("grep", "-q", "Nothing to do", filepath.Join(logs, "run-now-demo-3.out")).Output(); err != nil {
		t.Errorf("the beat's output is not kept: %v", err)
	}
}

// runsByRef is a board whose tickets' runs are given.
type runsByRef map[board.Ref][]board.Run

func (r runsByRef) Runs(_ context.Context, ref board.Ref) ([]board.Run, error) { return r[ref], nil }

// TestVariantRuns_OneListNewestFirst checks that Run now's wait on a
// round of variants sees every variant's runs as one ticket's, newest
// first, and nothing of a ticket outside the round.
func TestVariantRuns_OneListNewestFirst(t *testing.T) {
	t.Parallel()
	at := func(min int) time.Time { return time.Date(2026, 11, 30, 10, min, 0, 0, time.UTC) }
	a, b, other := board.Ref{Project: "demo", Number: 2}, board.Ref{Project: "demo", Number: 3}, board.Ref{Project: "demo", Number: 4}
	runs := runsByRef{
		a:     {{ID: "a1", StartedAt: at(1)}, {ID: "a3", StartedAt: at(3)}},
		b:     {{ID: "b2", StartedAt: at(2)}},
		other: {{ID: "x9", StartedAt: at(9)}},
	}
	got, err := heartbeat.VariantRuns(runs, []board.Ref{a, b}).Runs(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, " "); got != "a3 b2 a1" {
		t.Errorf("runs %q, want a3 b2 a1", got)
	}
}
