package heartbeat_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
