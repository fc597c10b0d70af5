package text

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

func progressRun(turns int, end *heartbeat.RunReport) heartbeat.Progress {
	return heartbeat.Progress{Ticket: "demo#3", Task: board.TaskResearch, Model: "anthropic/m", RunID: "r1",
		Started: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Turns: turns,
		Usage: board.Usage{InputTokens: 1000 * int64(turns), OutputTokens: 100, CostUSD: 0.02 * float64(turns)}, End: end}
}

func TestProgressLines(t *testing.T) {
	var out bytes.Buffer
	f := ProgressLines(&out)
	f(progressRun(0, nil))
	f(progressRun(1, nil))
	f(progressRun(2, nil))
	f(progressRun(2, &heartbeat.RunReport{Status: board.RunCompleted, MovedTo: board.InProgress, Duration: 72 * time.Second}))
	want := "demo#3 started: research with anthropic/m (run r1)\n" +
		"demo#3 ended: completed, moved to IN_PROGRESS; 1m12s, 2 turns, 2100 tokens, $0.04\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestLive_RedrawsInPlace(t *testing.T) {
	var out bytes.Buffer
	now := time.Date(2026, 1, 1, 10, 0, 5, 0, time.UTC)
	l := NewLive(&out, func() time.Time { return now })
	l.Update(progressRun(0, nil))
	if got := out.String(); got != "demo#3 started: research with anthropic/m (run r1)\n  demo#3 research running: 5s, 0 turns, 100 tokens, $0.00\n" {
		t.Fatalf("after the start:\n%q", got)
	}
	out.Reset()
	now = now.Add(time.Minute)
	l.Update(progressRun(1, nil))
	if got := out.String(); got != "\x1b[1F\x1b[J  demo#3 research running: 1m5s, 1 turn, 1100 tokens, $0.02\n" {
		t.Fatalf("after a response, the line must be replaced:\n%q", got)
	}
	out.Reset()
	l.Redraw()
	if !strings.HasPrefix(out.String(), "\x1b[1F\x1b[J  demo#3") {
		t.Fatalf("redraw: %q", out.String())
	}
	out.Reset()
	l.Update(progressRun(1, &heartbeat.RunReport{Status: board.RunError, Error: "model said no", Duration: time.Minute}))
	if got := out.String(); got != "\x1b[1F\x1b[Jdemo#3 ended: error: model said no; 1m0s, 1 turn, 1100 tokens, $0.02\n" {
		t.Fatalf("after the end, the running line must be gone:\n%q", got)
	}
	out.Reset()
	l.Redraw()
	if out.Len() != 0 {
		t.Errorf("nothing runs, nothing to draw: %q", out.String())
	}
}
