package gate_test

import (
	"context"
	"slices"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// recording is a local executor that remembers whether its last command
// was asked to run read-only.
type recording struct {
	*local.Executor
	readOnly []bool
}

func (r *recording) Shell(ctx context.Context, script string, o executor.RunOptions) (executor.Exit, error) {
	r.readOnly = append(r.readOnly, o.ReadOnly)
	return r.Executor.Shell(ctx, script, o)
}

// TestReadOnlyCommandsRunReadOnly: a command the policy allows only
// because every part of it reads, and every command of read-only mode,
// reaches the executor with RunOptions.ReadOnly, so the sandbox runs it
// where the worktree cannot be written; in the other modes one allowed by
// a pattern, by auto mode or by a person, or with any part that is not a
// known reader, does not.
func TestReadOnlyCommandsRunReadOnly(t *testing.T) {
	approve := func(context.Context, string, policy.Decision) gate.Answer { return gate.Answer{Allow: true} }
	for _, c := range []struct {
		mode policy.Mode
		cmd  string
		want bool
	}{
		{policy.ModeAsk, "cat README", true},
		{policy.ModeAsk, "ls -la | grep x | head", true},
		{policy.ModeAsk, "git log --oneline -3", true},
		{policy.ModeAsk, "ls && make build", false},
		{policy.ModeAsk, "make build && ls", false},
		{policy.ModeAsk, "touch x", false},
		{policy.ModeAuto, "cat README", false},
		{policy.ModeReadOnly, "cat README", true},
		{policy.ModeReadOnly, "make build", true},
		{policy.ModeReadOnly, "python3 x.py", true}, // asked, approved
	} {
		dir := t.TempDir()
		l, err := local.New(dir, local.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ex := &recording{Executor: l}
		ts := gate.Wrap(tools.New(ex, tools.Options{}), gate.Config{
			Policy: policy.Config{Mode: c.mode, Workspace: dir, Allow: []string{"make build"}}, Ask: approve})
		bash(t, ts, c.cmd)
		l.Close()
		if len(ex.readOnly) != 1 || ex.readOnly[0] != c.want {
			t.Errorf("%s mode, %q: read-only %v, want %v", c.mode, c.cmd, ex.readOnly, c.want)
		}
	}
}

// TestUnconfinedAsksInsteadOfReadOnly: with the project's sandbox off no
// mount holds a command to reading, so what the sandbox would have run
// read-only unasked (a command allowed only because it reads; any
// allowed command of a read-only run, as research before a person
// approved the plan) is held for a person with rule sandbox-off, and runs
// only once they allow it. A pattern's command in ask mode and a
// writable run's commands are not held; write and edit stay refused.
func TestUnconfinedAsksInsteadOfReadOnly(t *testing.T) {
	for _, c := range []struct {
		mode     policy.Mode
		readOnly bool
		cmd      string
		held     bool
	}{
		{policy.ModeAsk, false, "cat README", true},
		{policy.ModeAsk, false, "git log --oneline -3", true},
		{policy.ModeAsk, false, "make build", false},
		{policy.ModeReadOnly, false, "cat README", true},
		{policy.ModeReadOnly, false, "make build", true},
		{policy.ModeAuto, true, "touch marker", true},
		{policy.ModeAuto, true, "ls", true},
		{policy.ModeAuto, false, "touch marker", false},
	} {
		for _, allow := range []bool{false, true} {
			dir := t.TempDir()
			l, err := local.New(dir, local.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ex := &recording{Executor: l}
			var asked []policy.Decision
			ts := gate.Wrap(tools.New(ex, tools.Options{}), gate.Config{
				Policy:   policy.Config{Mode: c.mode, Workspace: dir, Allow: []string{"make build"}},
				ReadOnly: c.readOnly, Unconfined: true,
				Ask: func(_ context.Context, _ string, d policy.Decision) gate.Answer {
					asked = append(asked, d)
					return gate.Answer{Allow: allow, Message: "not now"}
				}})
			bash(t, ts, c.cmd)
			l.Close()
			held := len(asked) == 1 && asked[0].Rule == gate.SandboxOffRule
			if held != c.held {
				t.Errorf("%s mode (read-only run %v), %q: asked %+v; want held for sandbox-off: %v", c.mode, c.readOnly, c.cmd, asked, c.held)
			}
			if ran := len(ex.readOnly) == 1; ran != (!c.held || allow) {
				t.Errorf("%s mode (read-only run %v), %q, person allows %v: ran %v", c.mode, c.readOnly, c.cmd, allow, ran)
			}
			if slices.Contains(ex.readOnly, true) {
				t.Errorf("%q reached the local executor marked read-only, which it cannot enforce", c.cmd)
			}
			if c.readOnly {
				if r := call(t, ts, "write", map[string]string{"path": "x", "content": "x"}); !r.IsError {
					t.Errorf("write in a read-only run: %+v, want refused", r)
				}
			}
		}
	}
}
