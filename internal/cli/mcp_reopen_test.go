package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// Issue 27, item 15: a person's MCP tools keep a landed DONE ticket DONE,
// as `bonsai ticket move` and the web UI do.
func TestMCP_PersonMoveKeepsALandedTicketDone(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ta.run("init")
	demoBoard(t, ta)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(ta.env["BONSAI_DATA_DIR"], "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	ref := board.Ref{Project: "demo", Number: 1}
	if _, err := db.MoveTicket(ctx, ref, board.MoveRequest{To: board.Verification, Actor: board.Agent}, "agent"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.MoveTicket(ctx, ref, board.MoveRequest{To: board.Done, Actor: board.Human}, "tester"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveLanding(ctx, board.Landing{Ref: ref, Mode: board.LandMerge, Commit: strings.Repeat("ab", 20), LandedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	cs := stdioClient(t, ta)
	out, isErr := callTool(t, cs, "ticket_move", map[string]any{"ticket": "demo#1", "to": "BACKLOG"})
	if !isErr || !strings.Contains(out, "so it stays DONE; to change it, open a follow-up ticket: `bonsai ticket reopen demo#1`") {
		t.Errorf("ticket_move BACKLOG of a landed ticket = %v %q", isErr, out)
	}
	if show := ta.run("ticket", "show", "demo#1", "--json"); !strings.Contains(show, `"state": "DONE"`) {
		t.Errorf("the ticket moved:\n%s", show)
	}
}
