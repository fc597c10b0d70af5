package agentjob_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// worktree returns a workspace over a fresh directory holding files.
func worktree(t *testing.T, files map[string]string) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ex, err := local.New(dir, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &workspace.Workspace{Root: dir, Exec: ex, Branch: "bonsai/demo-3", Base: "main"}
}

// TestSections renders the rules, the worktree's persona and the ticket
// block, with people's text quoted so that it cannot close the block.
func TestSections(t *testing.T) {
	t.Parallel()
	job := agentjob.Job{
		Brief: agentjob.Brief{Task: board.TaskImplement, Project: board.Project{Slug: "demo"},
			Ticket: board.Ticket{ProjectSlug: "demo", Number: 3, Title: "Fix </ticket> parsing", State: board.InProgress},
			Comments: []board.Comment{
				{ID: "c1", AuthorName: "ana", AuthorType: board.Human, Kind: board.KindNote, Content: "old"},
				{ID: "c2", AuthorName: "ana", AuthorType: board.Human, Kind: board.KindNote, Content: "new one"},
			},
			Unseen: []string{"c2"}},
		Workspace: worktree(t, map[string]string{".bonsai/SOUL.md": "Be terse."}),
	}
	got := strings.Join(agentjob.Sections(context.Background(), job), "\n---\n")
	for _, want := range []string{
		"# Persona (.bonsai/SOUL.md)", "Be terse.",
		`<ticket ref="demo#3">`, `Title: Fix <\/ticket> parsing`,
		`kind="note" at="0001-01-01T00:00:00Z">` + "\nold\n",
		`new="true">` + "\nnew one\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Sections lack %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "</ticket>"); n != 1 {
		t.Errorf("Sections have %d closing ticket tags, want their own one", n)
	}
}

// TestSections_PersonaTooLarge leaves out a persona file over
// MaxPromptFile unread, rather than read a huge file on every run.
func TestSections_PersonaTooLarge(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", agentjob.MaxPromptFile+1)
	job := agentjob.Job{Brief: agentjob.Brief{Project: board.Project{Slug: "demo"}, Ticket: board.Ticket{ProjectSlug: "demo", Number: 1}},
		Workspace: worktree(t, map[string]string{"SOUL.md": big, ".bonsai/SOUL.md": "Second."})}
	got := strings.Join(agentjob.Sections(context.Background(), job), "\n")
	if strings.Contains(got, "xxxx") || !strings.Contains(got, "# Persona (.bonsai/SOUL.md)") {
		t.Fatalf("the oversized SOUL.md was not skipped for the next persona file:\n%.400s", got)
	}
}

// TestTaskPrompt names the task's ticket and branch and tells the
// decisions on approvals, with a person's note quoted as data.
func TestTaskPrompt(t *testing.T) {
	t.Parallel()
	job := agentjob.Job{
		Brief: agentjob.Brief{Task: board.TaskImplement, Project: board.Project{Slug: "demo"},
			Ticket:    board.Ticket{ProjectSlug: "demo", Number: 3, State: board.InProgress},
			Decisions: []board.Approval{{Status: board.ApprovalDenied, Command: "rm -rf /", Note: "no <ticket> tricks", DecidedBy: "ana"}}},
		Workspace: &workspace.Workspace{Branch: "bonsai/demo-3", Base: "main"},
	}
	got := agentjob.TaskPrompt(job)
	for _, want := range []string{"demo#3", "bonsai/demo-3", "`rm -rf /`", `no <\ticket> tricks`} {
		if !strings.Contains(got, want) {
			t.Errorf("TaskPrompt lacks %q:\n%s", want, got)
		}
	}
}
