package heartbeat_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// TestBeat_AlwaysGrantFollowsTheProgram: an always-grant records the
// program the bare name resolves to on the commands' PATH, and lets the
// command run only while the name resolves to that file: after a
// program of the same name appears earlier on PATH, or PATH starts with
// the working directory, the identical command line needs a new
// approval (issue 25, finding 4), whose grant records the new program.
func TestBeat_AlwaysGrantFollowsTheProgram(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := t.TempDir()
	sys, early := filepath.Join(bin, "sys"), filepath.Join(bin, "early")
	for _, d := range []string{sys, early} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "make"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	usePath := func(dirs ...string) {
		resolve := executor.ProgramResolver(strings.Join(dirs, string(filepath.ListSeparator)))
		e.opts.ResolveProgram = func(board.SandboxMode) func(string) string { return resolve }
	}
	e.project("demo", func(p *board.Project) { p.Agent.PermissionMode = board.ModeAsk })
	tk := e.ticket("demo", "Test it", board.InProgress)
	const cmd = "make test"
	var d policy.Decision
	var answer heartbeat.ApprovalAnswer
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		d, answer = approve(t, ctx, job, cmd)
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}

	usePath(sys)
	e.beat()
	as := e.approvals(tk.Ref())
	first := filepath.Join(sys, "make") + " test"
	if len(as) != 1 || as[0].Pattern != first {
		t.Fatalf("approvals = %+v, want one recording %q", as, first)
	}
	e.decide(tk.Ref(), as[0].ID, board.ApprovalDecision{Allow: true, Always: true, By: "alice"})
	e.beat()
	if !answer.Allow || d.Rule != "allow-pattern" {
		t.Fatalf("%q after the grant: %s, %+v; want allowed by its pattern", cmd, d, answer)
	}

	// Another make comes first on PATH: asked again, not run.
	usePath(early, sys)
	e.beat()
	if answer.Allow || !answer.EndRun {
		t.Fatalf("%q with another make first on PATH: %s, %+v; want a new approval", cmd, d, answer)
	}
	as = e.approvals(tk.Ref())
	second := filepath.Join(early, "make") + " test"
	if len(as) != 2 || as[1].Status != board.ApprovalPending || as[1].Pattern != second {
		t.Fatalf("approvals = %+v, want a second request recording %q", as, second)
	}
	e.decide(tk.Ref(), as[1].ID, board.ApprovalDecision{Allow: true, Always: true, By: "alice"})
	e.beat()
	if !answer.Allow {
		t.Fatalf("%q after the second grant: %s, %+v; want allowed", cmd, d, answer)
	}

	// The working directory first on PATH: the name resolves to nothing
	// the host can vouch for, so neither grant holds.
	usePath(".", early, sys)
	e.beat()
	if answer.Allow {
		t.Fatalf("%q with . first on PATH: %s, %+v; want a new approval", cmd, d, answer)
	}
	if as := e.approvals(tk.Ref()); len(as) != 3 || as[2].Pattern != "" {
		t.Fatalf("approvals = %+v, want a third request with no pattern", as)
	}
}
