package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestMigrate_LeasesPerTicket upgrades a board whose leases were keyed by
// project, holding one: the lease is kept, now keyed by its ticket, and
// the project's default max-agents of 1 still refuses a second one.
func TestMigrate_LeasesPerTicket(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	before := -1
	for i, m := range ms {
		if strings.HasSuffix(m.name, "_leases_per_ticket.sql") {
			before = i
		}
	}
	if before < 0 {
		t.Fatal("no leases_per_ticket migration")
	}
	var script []string
	for _, m := range ms[:before] {
		script = append(script, m.sql)
	}
	expires := time.Now().Add(time.Hour).UnixMilli()
	if _, err := old.Exec(strings.Join(script, ";\n") + fmt.Sprintf(`; PRAGMA user_version = %d;
		INSERT INTO projects (id, slug, name, repo, default_branch, created_at, updated_at) VALUES
			('p1', 'demo', 'D', '/r', 'main', 0, 0);
		INSERT INTO tickets (id, project_id, number, title, state, priority, created_at, updated_at) VALUES
			('t1', 'p1', 1, 'one', 'RESEARCH', 2, 0, 0), ('t2', 'p1', 2, 'two', 'RESEARCH', 2, 0, 0);
		INSERT INTO leases (project_id, ticket_id, worker, acquired_at, expires_at) VALUES
			('p1', 't1', 'a:1', 0, %d);`, before, expires)); err != nil {
		t.Fatal(err)
	}
	old.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ls, err := db.Leases(ctx)
	if err != nil || len(ls) != 1 || ls[0].Ref.String() != "demo#1" || ls[0].Worker != "a:1" || ls[0].TicketID != "t1" {
		t.Fatalf("leases after the upgrade = %+v, %v", ls, err)
	}
	_, err = db.AcquireLease(ctx, board.Ref{Project: "demo", Number: 2}, "b:2", time.Minute, 0)
	if board.ErrorCode(err) != board.ECONFLICT || !strings.Contains(err.Error(), "already has an agent") {
		t.Errorf("a second lease in a project of one agent = %v, want ECONFLICT", err)
	}
}
