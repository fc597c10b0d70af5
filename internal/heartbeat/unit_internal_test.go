package heartbeat

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

// unit is a real SQLite board with one project and one ticket, for the
// unit tests of a run's concerns.
type unit struct {
	db     *sqlite.DB
	ticket board.Ticket
	log    *slog.Logger
}

func newUnit(t *testing.T) *unit {
	t.Helper()
	ctx := context.Background()
	db, err := sqlitetest.Open(ctx, filepath.Join(t.TempDir(), "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "https://example.com/d.git", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Fix it", State: board.InProgress}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	return &unit{db: db, ticket: tk, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func (u *unit) notes() ticketNotes { return ticketNotes{store: u.db, ref: u.ticket.Ref(), log: u.log} }

// comments returns the ticket's comments.
func (u *unit) comments(t *testing.T) []board.Comment {
	t.Helper()
	cs, err := u.db.Comments(context.Background(), u.ticket.Ref())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// startRun starts a run on the ticket.
func (u *unit) startRun(t *testing.T) board.Run {
	t.Helper()
	r, err := u.db.StartRun(context.Background(), board.Run{TicketID: u.ticket.ID, Task: board.TaskImplement, WorkerID: "w"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
