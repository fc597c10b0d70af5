package tickettool_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// shot writes a real PNG into the worktree under a git-ignored directory
// and commits the ignore rule, so the work stays clean.
func shot(t *testing.T, dir string) []byte {
	t.Helper()
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	os.MkdirAll(filepath.Join(dir, "evidence"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "evidence", "page.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("evidence/\n"), 0o644)
	git(t, dir, "add", ".gitignore")
	git(t, dir, "commit", "-q", "-m", "ignore evidence")
	return b.Bytes()
}

// TestMove_EvidenceAttachesScreenshot: a criterion's evidence attaches a
// screenshot from the worktree to the completion comment.
func TestMove_EvidenceAttachesScreenshot(t *testing.T) {
	t.Parallel()
	s, db, ref, dir := setupDir(t, "", "the page renders")
	pic := shot(t, dir)
	r := run(t, s, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": []map[string]any{
		{"criterion": "the page renders", "evidence": "screenshot attached", "attach": []string{"evidence/page.png"}}}})
	if r.IsError {
		t.Fatalf("ticket_move: %s", r.Text())
	}
	ctx := context.Background()
	as, err := db.Attachments(ctx, ref)
	if err != nil || len(as) != 1 {
		t.Fatalf("attachments = %+v, %v", as, err)
	}
	cs, _ := db.Comments(ctx, ref)
	done := cs[len(cs)-1]
	if a := as[0]; a.Name != "page.png" || a.MediaType != board.MediaPNG || a.CommentID != done.ID || a.AuthorType != board.Agent {
		t.Errorf("attachment = %+v, want page.png on the completion comment %s", a, done.ID)
	}
	if !strings.Contains(done.Content, "Attached: `page.png`") {
		t.Errorf("completion comment does not name the file:\n%s", done.Content)
	}
	if _, data, _ := db.AttachmentContent(ctx, ref, as[0].ID); !bytes.Equal(data, pic) {
		t.Error("the stored picture differs from the worktree's")
	}
}

// TestComment_AttachRefusals: the agent cannot attach a link (to a file
// outside the worktree, or through a linked directory), a path outside the
// worktree, a directory or a file over the limit; each is refused before
// anything is posted, and a plain log is attached.
func TestComment_AttachRefusals(t *testing.T) {
	t.Parallel()
	s, db, ref, dir := setupDir(t, "", "x")
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("the host's secret\n"), 0o600)
	os.Symlink(secret, filepath.Join(dir, "link.txt"))
	os.Symlink("a.txt", filepath.Join(dir, "inside-link.txt"))
	os.Symlink(filepath.Dir(secret), filepath.Join(dir, "linkdir"))
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "big.log"), bytes.Repeat([]byte("x"), 26<<20), 0o644)
	for _, tc := range []struct{ path, want string }{
		{"link.txt", "cannot attach link.txt"}, // os.Root refuses it as outside too
		{"inside-link.txt", "inside-link.txt is a symbolic link"},
		{"linkdir/secret.txt", "cannot attach linkdir/secret.txt"},
		{"../outside.txt", "give a file's path inside the worktree"},
		{"/etc/passwd", "give a file's path inside the worktree"},
		{"sub", "not a regular file"},
		{"big.log", "big.log is 26.0 MiB; attachments are limited to 25.0 MiB a file"},
		{"missing.png", "cannot attach missing.png"},
	} {
		r := run(t, s, "ticket_comment", map[string]any{"content": "see", "kind": "status", "attach": []string{tc.path}})
		if !r.IsError || !strings.Contains(r.Text(), tc.want) || strings.Contains(r.Text(), "the host's secret") {
			t.Errorf("attach %s: %v %q, want a refusal saying %q", tc.path, r.IsError, r.Text(), tc.want)
		}
	}
	ctx := context.Background()
	if cs, _ := db.Comments(ctx, ref); len(cs) != 0 {
		t.Errorf("refused attachments posted %d comments", len(cs))
	}
	os.WriteFile(filepath.Join(dir, "run.log"), []byte("ok\n"), 0o644)
	r := run(t, s, "ticket_comment", map[string]any{"content": "the log", "kind": "status", "attach": []string{"run.log"}})
	if r.IsError || !strings.Contains(r.Text(), "Attached run.log (text/plain; charset=utf-8, 3 bytes).") {
		t.Errorf("attach run.log: %q", r.Text())
	}
	if as, _ := db.Attachments(ctx, ref); len(as) != 1 {
		t.Errorf("%d attachments, want the log", len(as))
	}
}
