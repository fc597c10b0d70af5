package text

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestWriteReport: each run's row says what became of it, a failed push
// stands out on one line, and a skipped beat names the beat holding the
// lock.
func TestWriteReport(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	rep := heartbeat.Report{Interrupted: 2, StartedAt: start, FinishedAt: start.Add(3 * time.Second), Runs: []heartbeat.RunReport{
		{Ticket: "demo#1", Task: board.TaskImplement, Status: board.RunCompleted, MovedTo: board.Verification, Duration: 2 * time.Second,
			PushError: "git push:\nrejected\tnon-fast-forward"},
		{Ticket: "web#2", Task: board.TaskResearch, Skipped: "provider openai paused"},
		{Ticket: "api#3", Task: board.TaskImplement, Status: board.RunError, Error: strings.Repeat("x", 100)},
	}}
	var b bytes.Buffer
	if err := WriteReport(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Marked 2 run(s) of a dead beat interrupted.\n",
		"completed, moved to VERIFICATION; NOT PUSHED: git push: rejected non-fast-forward",
		"skipped: provider openai paused",
		"error: " + strings.Repeat("x", 79) + "…",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Removed") {
		t.Errorf("report mentions removed worktrees when none were:\n%s", out)
	}

	b.Reset()
	if err := WriteReport(&b, heartbeat.Report{StartedAt: start, FinishedAt: start}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "Nothing to do (1ms).\n" {
		t.Errorf("idle beat = %q", b.String())
	}
	b.Reset()
	if err := WriteReport(&b, heartbeat.Report{Skipped: true, HolderPID: 4242}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "4242") {
		t.Errorf("skipped beat = %q; want the holder's pid", b.String())
	}
}

// TestWritePlans: a blocked plan says why it will not run, and idle
// projects are listed after the picks.
func TestWritePlans(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WritePlans(&b, nil, []string{"demo"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "Nothing to pick") {
		t.Errorf("no plans = %q", b.String())
	}
	b.Reset()
	plans := []heartbeat.Plan{{Project: board.Project{Slug: "demo"}, Ticket: board.Ticket{Number: 7, Title: "Fix it"},
		Task: board.TaskImplement, Model: "openai/gpt-5", Blocker: "no API key"}}
	if err := WritePlans(&b, plans, []string{"web"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "#7") || !strings.HasSuffix(lines[1], "openai/gpt-5 (not run: no API key)") ||
		!strings.HasPrefix(lines[2], "web ") || !strings.Contains(lines[2], "nothing to pick") {
		t.Errorf("plans =\n%s", b.String())
	}
}
