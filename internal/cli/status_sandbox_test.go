package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestSandboxKnown: status reports the sandbox as the last beat found it,
// without starting it, and a missing program whatever the state says.
func TestSandboxKnown(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bwrap is not installed; .ci/run installs bubblewrap")
		}
		t.Skip("bwrap is not installed; heartbeat_nosandbox.txtar covers a missing program")
	}
	st := &heartbeat.State{Sandbox: map[string]heartbeat.SandboxFailure{}}
	if err := sandboxKnown(st); err != nil {
		t.Fatalf("no failure recorded: %v", err)
	}
	st.Sandbox["web"] = heartbeat.SandboxFailure{Error: "bwrap: setting up uid map: Permission denied"}
	st.Sandbox["api"] = heartbeat.SandboxFailure{Error: "bwrap: No permissions to create new namespace"}
	err := sandboxKnown(st)
	if err == nil || !strings.Contains(err.Error(), "No permissions to create new namespace") {
		t.Fatalf("sandboxKnown = %v, want the first project's failure by slug", err)
	}
	t.Setenv("PATH", t.TempDir())
	if err := sandboxKnown(&heartbeat.State{}); err == nil || !strings.Contains(err.Error(), "bubblewrap") {
		t.Fatalf("without bwrap on PATH: %v", err)
	}
}
