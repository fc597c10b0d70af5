package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProvider_ErrorsShowNoHostPath makes the worktree fail (worktrees/demo
// is a file): Prepare's error, posted on the ticket the agent reads, names
// the worktree by its place in the data directory, not by its host path.
func TestProvider_ErrorsShowNoHostPath(t *testing.T) {
	t.Parallel()
	p, _, data := newProvider(t)
	os.MkdirAll(filepath.Join(data, "worktrees"), 0o755)
	if err := os.WriteFile(filepath.Join(data, "worktrees", "demo"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := p.Prepare(context.Background(), project(newRepo(t)), ticket(1, "x"))
	if err == nil {
		t.Fatal("Prepare succeeded with worktrees/demo a file")
	}
	real, _ := filepath.EvalSymlinks(data)
	if msg := err.Error(); strings.Contains(msg, data) || strings.Contains(msg, real) || !strings.Contains(msg, "worktrees/demo") {
		t.Errorf("error = %q, want worktrees/demo without the host path", msg)
	}
}
