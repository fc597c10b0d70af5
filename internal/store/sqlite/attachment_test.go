package sqlite_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// attachOne makes a ticket and attaches data to it.
func attachOne(t *testing.T, db *sqlite.DB, data []byte) (board.Ref, board.Attachment) {
	t.Helper()
	ctx := t.Context()
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/r", DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "T"}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	a, err := db.AddAttachment(ctx, tk.Ref(), board.NewAttachment{Name: "log.txt", Data: data, AuthorType: board.Human, AuthorName: "ana"},
		board.DefaultAttachmentLimits)
	if err != nil {
		t.Fatal(err)
	}
	return tk.Ref(), a
}

// TestAttachmentBytesInDataDirectory: on SQLite the bytes are a file named
// by their SHA-256 beside the database, not a row.
func TestAttachmentBytesInDataDirectory(t *testing.T) {
	t.Parallel()
	db := sqlite.OpenCopyForTest(t)
	data := []byte("hello\n")
	_, a := attachOne(t, db, data)
	p := filepath.Join(store.AttachmentsDir(db.Path()), a.SHA256)
	got, err := os.ReadFile(p)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("file %s = %q, %v; want the attached bytes", p, got, err)
	}
	if st, _ := os.Stat(filepath.Dir(p)); st.Mode().Perm() != 0o700 {
		t.Errorf("attachments directory mode %v, want 0700", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("attachments directory holds %d entries, want only the file (no temporary left)", len(entries))
	}
}

// TestAttachmentFileNeverFollowsLink: a link put where an attachment's
// file is, or where the directory is, is not read through, and a changed
// file is refused by its SHA-256.
func TestAttachmentFileNeverFollowsLink(t *testing.T) {
	t.Parallel()
	db := sqlite.OpenCopyForTest(t)
	ref, a := attachOne(t, db, []byte("hello\n"))
	p := filepath.Join(store.AttachmentsDir(db.Path()), a.SHA256)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, p); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.AttachmentContent(t.Context(), ref, a.ID); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("read through a link: err = %v, want a refusal", err)
	}
	// Attaching the same content again replaces the link, not its target.
	if _, err := db.AddAttachment(t.Context(), ref, board.NewAttachment{Name: "again.txt", Data: []byte("hello\n"),
		AuthorType: board.Human}, board.DefaultAttachmentLimits); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		t.Errorf("after attaching again, %s is %v, %v; want a regular file", p, st.Mode(), err)
	}
	if _, data, err := db.AttachmentContent(t.Context(), ref, a.ID); err != nil || string(data) != "hello\n" {
		t.Errorf("read = %q, %v", data, err)
	}
	// A changed file does not match its address.
	if err := os.WriteFile(p, []byte("HELLO\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.AttachmentContent(t.Context(), ref, a.ID); err == nil || !strings.Contains(err.Error(), "do not match") {
		t.Errorf("changed file: err = %v", err)
	}
	// A directory that is a link is refused for writing.
	dir := store.AttachmentsDir(db.Path())
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), dir); err != nil {
		t.Fatal(err)
	}
	_, err := db.AddAttachment(t.Context(), ref, board.NewAttachment{Name: "x.txt", Data: []byte("x"), AuthorType: board.Human},
		board.DefaultAttachmentLimits)
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("attach into a linked directory: err = %v", err)
	}
}
