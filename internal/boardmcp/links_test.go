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

// TestPersonTools_Links: over MCP a person links tickets, creates a
// sub-ticket and sees both in ticket_show; a cycle is a tool error naming
// it, and a wrong call says what to give.
func TestPersonTools_Links(t *testing.T) {
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
	for _, title := range []string{"Use", "Build"} {
		if _, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: title, State: board.InProgress, Priority: 2}, board.Human); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, boardmcp.PersonTools(db, "alice", nil)...)
	for _, c := range []struct {
		args  map[string]any
		isErr bool
		want  string
	}{
		{map[string]any{"ticket": "demo#1", "blockedBy": "demo#2"}, false, "demo#1 waits for demo#2."},
		{map[string]any{"ticket": "demo#2", "blockedBy": "demo#1"}, true, "dependency cycle: demo#2 → demo#1 → demo#2"},
		{map[string]any{"ticket": "demo#2"}, true, "give exactly one of blockedBy and parent"},
		{map[string]any{"ticket": "demo#1", "blockedBy": "demo#2", "remove": true}, false, "Removed the blocked_by link of demo#1 to demo#2."},
		{map[string]any{"ticket": "demo#1", "blockedBy": "demo#2", "remove": true}, true, "demo#1 has no blocked_by link to demo#2"},
	} {
		if r := call(t, cs, "ticket_link", c.args); r.IsError != c.isErr || !strings.Contains(text(r), c.want) {
			t.Errorf("ticket_link(%v) = %v %q, want %v %q", c.args, r.IsError, text(r), c.isErr, c.want)
		}
	}
	if r := call(t, cs, "ticket_create", map[string]any{"project": "demo", "title": "Part", "parent": "demo#2"}); r.IsError || text(r) != "Created demo#3 (Part) in BACKLOG." {
		t.Errorf("ticket_create with a parent = %v %q", r.IsError, text(r))
	}
	if r := call(t, cs, "ticket_show", map[string]any{"ticket": "demo#2"}); r.IsError ||
		!strings.Contains(text(r), `"children": [`) || !strings.Contains(text(r), "it waits for demo#3 (sub-ticket, BACKLOG)") {
		t.Errorf("ticket_show of the parent = %v %s", r.IsError, text(r))
	}
}
