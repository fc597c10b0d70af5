package heartbeat_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// sandboxComments counts the runtime's comments about the sandbox.
func sandboxComments(e *env, ref board.Ref) int {
	n := 0
	for _, c := range e.comments(ref) {
		if c.AuthorType == board.System && strings.Contains(c.Content, "sandbox cannot start") {
			n++
		}
	}
	return n
}

// TestBeat_SandboxUnavailableSkips: a project whose required sandbox
// cannot start has its pick skipped with no run and no spend, one comment
// per streak saying how to fix it, and the skip reason in the report; once
// the sandbox starts the ticket runs and the streak ends, so the next
// failure comments again. Another project is not held up.
func TestBeat_SandboxUnavailableSkips(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", nil)
	e.project("other", nil)
	tk := e.ticket("demo", "Work", board.InProgress)
	ok := e.ticket("other", "Fine", board.InProgress)
	var broken atomic.Bool
	broken.Store(true)
	e.opts.Sandbox = func(p board.Project) error {
		if p.Slug == "demo" && broken.Load() {
			return fmt.Errorf("%w: sandbox: bwrap not found on PATH; install the bubblewrap package (apt-get install bubblewrap)", executor.ErrSandboxUnavailable)
		}
		return nil
	}
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}

	for beat := 1; beat <= 2; beat++ {
		rep := e.beat()
		var skip string
		for _, r := range rep.Runs {
			if r.Ticket == tk.Ref().String() {
				skip = r.Skipped
				if r.RunID != "" {
					t.Fatalf("beat %d started a run: %+v", beat, r)
				}
			}
		}
		for _, want := range []string{"the sandbox cannot start", "apt-get install bubblewrap", "bonsai project edit demo --sandbox off"} {
			if !strings.Contains(skip, want) {
				t.Errorf("beat %d: skip reason %q lacks %q", beat, skip, want)
			}
		}
		if n := sandboxComments(e, tk.Ref()); n != 1 {
			t.Errorf("beat %d: %d sandbox comments, want 1", beat, n)
		}
		if len(e.runs(tk.Ref())) != 0 {
			t.Errorf("beat %d: runs recorded for a skipped ticket", beat)
		}
	}
	if len(e.runs(ok.Ref())) != 2 {
		t.Errorf("the other project ran %d times, want 2", len(e.runs(ok.Ref())))
	}
	c := e.comments(tk.Ref())
	text := c[len(c)-1].Content
	for _, want := range []string{"No agent ran", "bwrap not found", "--sandbox off", "on the host"} {
		if !strings.Contains(text, want) {
			t.Errorf("comment lacks %q:\n%s", want, text)
		}
	}
	if _, in := heartbeat.ReadState(e.opts.StateFile).Sandbox["demo"]; !in {
		t.Error("the streak is not in heartbeat.json")
	}

	broken.Store(false)
	e.beat()
	if len(e.runs(tk.Ref())) != 1 {
		t.Fatalf("runs = %+v after the sandbox started", e.runs(tk.Ref()))
	}
	if _, in := heartbeat.ReadState(e.opts.StateFile).Sandbox["demo"]; in {
		t.Error("the streak outlived a usable sandbox")
	}
	broken.Store(true)
	e.beat()
	if n := sandboxComments(e, tk.Ref()); n != 2 {
		t.Errorf("%d sandbox comments after a second streak, want 2", n)
	}
}

// TestBeat_SandboxCommentWaitsForAModel: a pick already skipped for its
// model posts nothing about the sandbox (a beat without a usable model
// touches no ticket), and Plan shows the problem.
func TestBeat_SandboxCommentWaitsForAModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.Research)
	e.runner.ready = func(string) error { return errors.New("ANTHROPIC_API_KEY is not set") }
	e.opts.Sandbox = func(board.Project) error { return executor.ErrSandboxUnavailable }
	rep := e.beat()
	if len(rep.Runs) != 1 || rep.Runs[0].Skipped != "ANTHROPIC_API_KEY is not set" {
		t.Fatalf("report = %+v", rep.Runs)
	}
	if len(e.comments(tk.Ref())) != 0 || e.get(tk.Ref()).UpdatedAt != tk.UpdatedAt {
		t.Error("the ticket was touched")
	}
	h, err := heartbeat.New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := h.Plan(t.Context())
	if err != nil || len(plans) != 1 || plans[0].Sandbox != "the sandbox cannot start" {
		t.Fatalf("plans = %+v, %v", plans, err)
	}
}
