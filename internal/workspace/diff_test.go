package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// TestProvider_DiffRunsNothingTheAgentConfigured sets, from the ticket's
// worktree as the agent can, a textconv filter for every file (through
// core.attributesFile) and an external diff in the shared clone config:
// Diff, which the web server runs when a person opens the ticket's
// changes, must show the plain diff and run neither.
func TestProvider_DiffRunsNothingTheAgentConfigured(t *testing.T) {
	t.Parallel()
	p, _, _ := newProvider(t)
	proj := project(newRepo(t))
	tk := ticket(2, "Change readme")
	if d, err := p.Diff(context.Background(), proj, tk, workspace.Review{}); err != nil || d != "" {
		t.Fatalf("Diff before any clone = %q, %v; want empty", d, err)
	}
	ws := prepare(t, p, proj, tk)
	os.WriteFile(filepath.Join(ws.Root, "README.md"), []byte("# changed\n"), 0o644)
	gittest.Run(t, ws.Root, "commit", "-q", "-am", "change readme")

	marker := filepath.Join(t.TempDir(), "ran")
	attrs := filepath.Join(t.TempDir(), "attributes")
	os.WriteFile(attrs, []byte("* diff=evil\n"), 0o644)
	gittest.Run(t, ws.Root, "config", "core.attributesFile", attrs)
	gittest.Run(t, ws.Root, "config", "diff.evil.textconv", "sh -c 'echo textconv >> "+marker+"; cat \"$0\"'")
	gittest.Run(t, ws.Root, "config", "diff.external", "sh -c 'echo external >> "+marker+"'")

	tk.Branch = ws.Branch
	d, err := p.Diff(context.Background(), proj, tk, workspace.Review{})
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	if !strings.Contains(d, "-# demo") || !strings.Contains(d, "+# changed") {
		t.Errorf("Diff = %q, want the README change", d)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("Diff ran what the agent configured: %s", b)
	}
}
