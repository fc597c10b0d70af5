package gate_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// TestModeChangesWhileTheToolsLive: with Config.Mode the mode in force
// is read at every call, as `bonsai run`'s /mode changes it: in auto a
// command and a write run; in ask the command is held; in read-only the
// write is refused and a command runs read-only; back in auto both run
// again.
func TestModeChangesWhileTheToolsLive(t *testing.T) {
	dir := t.TempDir()
	l, err := local.New(dir, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ex := &recording{Executor: l}
	var mode atomic.Value
	mode.Store(policy.ModeAuto)
	asked := 0
	ts := gate.Wrap(tools.New(ex, tools.Options{}), gate.Config{
		Policy: policy.Config{Mode: policy.ModeAuto, Workspace: dir},
		Mode:   func() policy.Mode { return mode.Load().(policy.Mode) },
		Ask: func(context.Context, string, policy.Decision) gate.Answer {
			asked++
			return gate.Answer{Message: "no"}
		}})
	write := func(name string) bool {
		return !call(t, ts, "write", map[string]string{"path": name, "content": "x"}).IsError
	}
	if !write("a") || bash(t, ts, "touch b").IsError || asked != 0 {
		t.Fatalf("auto: write or command refused (asked %d)", asked)
	}
	mode.Store(policy.ModeAsk)
	if !bash(t, ts, "touch c").IsError || asked != 1 {
		t.Fatalf("ask: the command was not held (asked %d)", asked)
	}
	mode.Store(policy.ModeReadOnly)
	if write("d") {
		t.Fatal("read-only: the write ran")
	}
	ex.readOnly = nil
	bash(t, ts, "cat a")
	if len(ex.readOnly) != 1 || !ex.readOnly[0] {
		t.Fatalf("read-only: the command ran read-only %v", ex.readOnly)
	}
	mode.Store(policy.ModeAuto)
	if !write("e") || bash(t, ts, "touch f").IsError {
		t.Fatal("back in auto: refused")
	}
	for _, name := range []string{"a", "b", "e", "f"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, name := range []string{"c", "d"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was made", name)
		}
	}
}
