package heartbeat_test

import (
	"context"
	"sync"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_Progress: Options.Progress hears a run start, each model
// response once (the runner reports each twice) and the end with the
// report.
func TestBeat_Progress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", nil)
	tk := e.ticket("demo", "Add a feature", board.Research)
	var mu sync.Mutex
	var got []heartbeat.Progress
	e.opts.Progress = func(p heartbeat.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		one := board.Usage{InputTokens: 100, OutputTokens: 10, CostUSD: 0.01}
		two := board.Usage{InputTokens: 300, OutputTokens: 30, CostUSD: 0.03}
		job.OnUsage(one)
		job.OnUsage(one)
		job.OnUsage(two)
		job.OnUsage(two)
		return heartbeat.Outcome{Status: board.RunCompleted, Usage: two}, nil
	}
	rep := e.beat()
	if len(rep.Runs) != 1 || rep.Runs[0].RunID == "" {
		t.Fatalf("report: %+v", rep.Runs)
	}
	if len(got) != 4 {
		t.Fatalf("want start, 2 responses, end; got %d: %+v", len(got), got)
	}
	ref := tk.Ref().String()
	for i, p := range got {
		if p.Ticket != ref || p.RunID != rep.Runs[0].RunID || p.Task != board.TaskResearch || p.Started.IsZero() || p.Model == "" {
			t.Errorf("progress %d: %+v", i, p)
		}
	}
	if got[0].End != nil || got[0].Turns != 0 || got[2].Turns != 2 || got[2].Usage.CostUSD != 0.03 || got[2].End != nil {
		t.Errorf("start or responses wrong: %+v", got[:3])
	}
	if end := got[3].End; end == nil || end.Status != board.RunCompleted || got[3].Turns != 2 {
		t.Errorf("end: %+v", got[3])
	}
	// The run keeps what it ran with and its turns (the insights group by them).
	runs, err := e.db.Runs(context.Background(), tk.Ref())
	if err != nil || len(runs) != 1 || runs[0].Model != got[0].Model || runs[0].Engine != "bonsai" || runs[0].Turns != 2 {
		t.Errorf("stored runs = %+v, %v; want model %q, engine bonsai, 2 turns", runs, err, got[0].Model)
	}
}
