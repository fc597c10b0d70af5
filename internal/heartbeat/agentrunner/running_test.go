package agentrunner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/session"
)

// TestRunner_LiveFileShowsTheRunningCommand runs the real agent loop and
// bash tool on a command that prints a line and then waits: while it
// waits, the live file beside the transcript holds the call as running
// (its name, start time and command) and the line it printed, which is
// what Live activity shows; once its result is in the transcript, the
// live file says so.
func TestRunner_LiveFileShowsTheRunningCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	tk, err := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Build", State: board.InProgress, Priority: 2}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	gate := filepath.Join(t.TempDir(), "go-on")
	command := "echo compiling-a; while [ ! -e " + gate + " ]; do sleep 0.05; done; echo linked"
	f.model.Push(call("c1", "bash", map[string]any{"command": command}), say("Built."))
	transcript, err := session.Layout{Root: f.opts.Sessions}.Transcript(tk.ProjectID, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	done := make(chan struct{})
	go func() { defer close(done); f.beat(t) }()

	r := session.NewLiveReader(session.LivePath(transcript), 1<<10)
	var seen bool
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !seen; time.Sleep(20 * time.Millisecond) {
		r.Poll()
		_, parts, ok := r.Streaming()
		if !ok || len(parts) < 2 {
			continue
		}
		run, out := parts[0], parts[1]
		seen = run.Kind == session.LiveRun && run.Name == "bash" && strings.Contains(string(run.Text), "compiling-a; while") &&
			run.Since >= started.Add(-time.Second).UnixMilli() && run.Since <= time.Now().UnixMilli() &&
			out.Kind == session.LiveOutput && strings.Contains(string(out.Text), "compiling-a")
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	<-done
	if !seen {
		t.Fatal("the live file never showed bash running with the line it printed")
	}
	r.Poll()
	if _, _, ok := r.Streaming(); ok {
		t.Error("the live file still shows something streaming after the run")
	}
	b, err := os.ReadFile(transcript)
	if err != nil || !strings.Contains(string(b), "linked") {
		t.Errorf("the transcript lacks the command's result: %v", err)
	}
}
