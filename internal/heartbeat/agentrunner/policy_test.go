package agentrunner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// worktreeFile is the path of a file in the ticket's worktree.
func (f *fixture) worktreeFile(t *testing.T, name string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(f.data, "worktrees", "*", "*"))
	if len(dirs) != 1 {
		t.Fatalf("worktrees %v, want one", dirs)
	}
	return filepath.Join(dirs[0], name)
}

// toolResults returns the text of every tool result the model was sent.
func (f *fixture) toolResults() []string {
	reqs := f.model.Requests()
	var out []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == llm.RoleToolResult {
			out = append(out, m.Text())
		}
	}
	return out
}

// TestRunner_DeniedCommandDoesNotRun: a command the policy denies never
// runs, the model reads which rule refused it, and the run goes on.
func TestRunner_DeniedCommandDoesNotRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.opts.Policy = policy.Config{DataDir: f.data, HomeDir: t.TempDir()}
	ctx := context.Background()
	if _, err := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Work", State: board.InProgress, Priority: 2}, board.Human); err != nil {
		t.Fatal(err)
	}
	f.model.Push(
		call("c1", "bash", map[string]any{"command": "touch marker && sudo id"}),
		call("c2", "bash", map[string]any{"command": "cat " + filepath.Join(f.data, "web-token") + " > leaked"}),
		call("c3", "bash", map[string]any{"command": "echo ok > after.txt"}),
		say("Done."),
	)
	rep := f.beat(t)
	if len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunCompleted {
		t.Fatalf("beat = %+v", rep.Runs)
	}
	for _, name := range []string{"marker", "leaked"} {
		if _, err := os.Stat(f.worktreeFile(t, name)); err == nil {
			t.Errorf("%s exists: a denied command ran", name)
		}
	}
	if b, err := os.ReadFile(f.worktreeFile(t, "after.txt")); err != nil || string(b) != "ok\n" {
		t.Errorf("after.txt = %q, %v: the run did not go on after the refusals", b, err)
	}
	res := strings.Join(f.toolResults(), "\n---\n")
	for _, want := range []string{"Command refused by the policy (privilege-escalation)", "Command refused by the policy (data-dir)"} {
		if !strings.Contains(res, want) {
			t.Errorf("the model was not told %q; tool results:\n%s", want, res)
		}
	}
}

// TestRunner_ProjectModeAndPatterns: an ask-mode project runs what its own
// and config.json's Allow patterns allow, and holds the rest for a person on
// the ticket (the run ends blocked); a read-only project refuses write.
func TestRunner_ProjectModeAndPatterns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.opts.Policy = policy.Config{Allow: []string{"touch *"}, DataDir: f.data}
	ctx := context.Background()
	ask := board.ModeAsk
	allow := []string{"mkdir *"}
	if _, err := f.db.UpdateProject(ctx, "demo", board.ProjectPatch{PermissionMode: &ask, Allow: &allow}); err != nil {
		t.Fatal(err)
	}
	tk, err := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Work", State: board.InProgress, Priority: 2}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	f.model.Push(
		call("c1", "bash", map[string]any{"command": "touch by-config"}),
		call("c2", "bash", map[string]any{"command": "mkdir by-project"}),
		call("c3", "bash", map[string]any{"command": "cp README.md held"}),
	)
	if rep := f.beat(t); len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunBlocked {
		t.Fatalf("beat = %+v, want the run blocked on the approval request", rep.Runs)
	}
	for name, want := range map[string]bool{"by-config": true, "by-project": true, "held": false} {
		if _, err := os.Stat(f.worktreeFile(t, name)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", name, err == nil, want)
		}
	}
	as, err := f.db.Approvals(ctx, tk.Ref())
	if err != nil || len(as) != 1 || as[0].Command != "cp README.md held" || as[0].Rule != "ask-mode" {
		t.Fatalf("approvals = %+v, %v; want the held command's request naming the rule", as, err)
	}
	// A person denies it, which unblocks the ticket for the next beat.
	if _, err := f.db.DecideApproval(ctx, tk.Ref(), as[0].ID, board.ApprovalDecision{By: "ana"}); err != nil {
		t.Fatal(err)
	}

	ro := board.ModeReadOnly
	if _, err := f.db.UpdateProject(ctx, "demo", board.ProjectPatch{PermissionMode: &ro}); err != nil {
		t.Fatal(err)
	}
	f.model.Push(
		call("c4", "write", map[string]any{"path": "new.txt", "content": "x"}),
		call("c5", "bash", map[string]any{"command": "touch by-config-again"}),
		say("Done."),
	)
	if rep := f.beat(t); len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunCompleted {
		t.Fatalf("beat 2 = %+v", rep.Runs)
	}
	for _, name := range []string{"new.txt", "by-config-again"} {
		if _, err := os.Stat(f.worktreeFile(t, name)); err == nil {
			t.Errorf("%s exists in a read-only project", name)
		}
	}
	res := strings.Join(f.toolResults(), "\n")
	for _, want := range []string{"read-only (research and plan only)", "(read-only-mode)"} {
		if !strings.Contains(res, want) {
			t.Errorf("the model was not told %q:\n%s", want, res)
		}
	}
}
