package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// TestStamp_EveryCommitChangesIt: whatever writes to the database, a
// commit into the WAL, a checkpoint into the database file, a WAL that
// starts over or a file put in its place, changes the stamp; reading
// does not. The heartbeat trusts an idle beat's findings only while the
// stamp stays (docs/heartbeat.md, "Idle beats").
func TestStamp_EveryCommitChangesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	later := func() time.Time { return time.Now().Add(time.Hour) } // past StampSettle
	stamp := func(what string) string {
		t.Helper()
		s, ok := Stamp(path, later())
		if !ok {
			t.Fatalf("%s: no stamp", what)
		}
		return s
	}
	seen := map[string]string{}
	changed := func(what string) string {
		t.Helper()
		s := stamp(what)
		if prev, ok := seen[s]; ok {
			t.Errorf("%s: the stamp is the one of %q", what, prev)
		}
		seen[s] = what
		return s
	}

	CopyTemplateForTest(t, path)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	changed("created")
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/r", DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	s := changed("a commit")
	if _, err := db.Projects(ctx, store.ProjectFilter{}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pick(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if got := stamp("reads"); got != s {
		t.Errorf("reading changed the stamp:\n%s\n%s", s, got)
	}
	if _, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "One", State: board.Backlog, Priority: 2}, board.Human); err != nil {
		t.Fatal(err)
	}
	changed("another commit")
	if _, err := db.sql.ExecContext(ctx, "PRAGMA wal_checkpoint(FULL)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Two", State: board.Backlog, Priority: 2}, board.Human); err != nil {
		t.Fatal(err)
	}
	changed("a commit into a WAL that starts over")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	changed("the checkpoint at close")

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s = stamp("opened")
	if _, err := db.Projects(ctx, store.ProjectFilter{}); err != nil {
		t.Fatal(err)
	}
	if got := stamp("opened and read"); got != s {
		t.Errorf("opening and reading changed the stamp:\n%s\n%s", s, got)
	}
	if _, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Three", State: board.Backlog, Priority: 2}, board.Human); err != nil {
		t.Fatal(err)
	}
	changed("a commit after the WAL was cut to nothing")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	changed("closed")

	// A copy put in place of the file (a restored backup), even with the
	// same size and modification time.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".restore"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if fileID(fi) != "" { // where the system tells files apart
		changed("a copy put in its place")
	}
}

// TestStamp_Settle: a stamp of files changed within StampSettle is not
// given, nor one of a missing database.
func TestStamp_Settle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	if _, ok := Stamp(path, time.Now()); ok {
		t.Error("a stamp of a missing database")
	}
	CopyTemplateForTest(t, path)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, ok := Stamp(path, time.Now()); ok {
		t.Error("a stamp of a database written just now")
	}
	if _, ok := Stamp(path, time.Now().Add(StampSettle+time.Second)); !ok {
		t.Error("no stamp once the files settled")
	}
}
