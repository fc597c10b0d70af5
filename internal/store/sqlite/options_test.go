package sqlite_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// TestOptions_ClockAndIDs checks that the injected clock and ID source are
// what the store uses, and that times are cut to the milliseconds the
// database keeps before they are returned, so a returned value equals the
// stored one exactly.
func TestOptions_ClockAndIDs(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 4, 3, 2, 1, 123_456_789, time.FixedZone("X", 3600))
	n := 0
	db := sqlite.OpenCopyForTest(t,
		sqlite.WithClock(func() time.Time { return now }),
		sqlite.WithIDs(func() string { n++; return fmt.Sprintf("id-%d", n) }))
	defer db.Close()

	p, err := db.CreateProject(t.Context(), board.Project{Slug: "demo", Name: "Demo", Repo: "/r", DefaultBranch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Second)
	tk, err := db.CreateTicket(t.Context(), board.Ticket{ProjectSlug: "demo", Title: "t"}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	wantProject := time.Date(2026, 5, 4, 2, 2, 1, 123_000_000, time.UTC)
	if p.ID != "id-1" || p.CreatedAt != wantProject || p.UpdatedAt != wantProject {
		t.Errorf("project ID %q, created %v, updated %v; want id-1 and %v", p.ID, p.CreatedAt, p.UpdatedAt, wantProject)
	}
	wantTicket := wantProject.Add(time.Second)
	if tk.ID != "id-2" || tk.CreatedAt != wantTicket {
		t.Errorf("ticket ID %q, created %v; want id-2 and %v", tk.ID, tk.CreatedAt, wantTicket)
	}
	got, err := db.Ticket(t.Context(), tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	if got.CreatedAt != tk.CreatedAt || got.UpdatedAt != tk.UpdatedAt {
		t.Errorf("read back created %v, updated %v; want %v exactly", got.CreatedAt, got.UpdatedAt, tk.CreatedAt)
	}
	es, err := db.Events(t.Context(), 0, 10)
	if err != nil || len(es) != 2 || es[1].CreatedAt != wantTicket {
		t.Errorf("events = %+v, %v; want two, the second at %v", es, err, wantTicket)
	}
}
