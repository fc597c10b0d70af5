package boardmcp_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/boardmcp"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

// TestPersonTools_StopAndRun: a person's MCP client stops a ticket's
// running run and starts one, with the board's answers: nothing to stop
// and a ticket that cannot run are tool errors saying why.
func TestPersonTools_StopAndRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlitetest.Open(ctx, filepath.Join(t.TempDir(), "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "demo", Repo: t.TempDir(), DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Work", State: board.InProgress, Priority: board.DefaultPriority}, board.Human)
	if err != nil {
		t.Fatal(err)
	}

	// Without a way to start beats, ticket_run says which command does.
	cs := connect(t, boardmcp.PersonTools(db, "alice", nil)...)
	if r := call(t, cs, "ticket_run", map[string]any{"ticket": "demo#1"}); !r.IsError || !strings.Contains(text(r), "bonsai ticket run demo#1") {
		t.Errorf("ticket_run without beats = %v %q", r.IsError, text(r))
	}
	if r := call(t, cs, "ticket_stop", map[string]any{"ticket": "demo#1"}); !r.IsError || !strings.Contains(text(r), "nothing to stop") {
		t.Errorf("ticket_stop with nothing running = %v %q", r.IsError, text(r))
	}
	run, err := db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskImplement})
	if err != nil {
		t.Fatal(err)
	}
	if r := call(t, cs, "ticket_stop", map[string]any{"ticket": "demo#1"}); r.IsError || !strings.Contains(text(r), run.ID) {
		t.Errorf("ticket_stop = %v %q", r.IsError, text(r))
	}
	ctl, err := db.RunControl(ctx, run.ID)
	if err != nil || ctl.StopRequestedAt == nil || ctl.StopRequestedBy != "alice" {
		t.Errorf("RunControl = %+v, %v; want a stop asked by alice", ctl, err)
	}

	var asked []string
	cs = connect(t, boardmcp.PersonTools(db, "alice", func(ctx context.Context, ref board.Ref) (string, error) {
		asked = append(asked, ref.String())
		if ref.Number == 1 {
			return "demo#1: run 7 started (implement) by beat pid 42", nil
		}
		return "", board.Errorf(board.EREFUSED, "%s cannot run now: it is in BACKLOG", ref)
	})...)
	if r := call(t, cs, "ticket_run", map[string]any{"ticket": "demo#1"}); r.IsError || text(r) != "demo#1: run 7 started (implement) by beat pid 42" {
		t.Errorf("ticket_run = %v %q", r.IsError, text(r))
	}
	if r := call(t, cs, "ticket_run", map[string]any{"ticket": "demo#9"}); !r.IsError || !strings.Contains(text(r), "demo#9") {
		t.Errorf("ticket_run of an unknown ticket = %v %q", r.IsError, text(r))
	}
	if len(asked) != 1 {
		t.Errorf("RunNow asked for %v; an unknown ticket must not start a beat", asked)
	}
}
