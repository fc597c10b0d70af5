package gate_test

import (
	"context"
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
