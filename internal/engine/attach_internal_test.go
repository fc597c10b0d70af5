package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
)

func file(name, media, content string) agentjob.Attached {
	return agentjob.Attached{Attachment: board.Attachment{Name: name, MediaType: media, Size: int64(len(content)),
		SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(content)))}, Data: []byte(content)}
}

// Names from the board's rows are made safe again before a file is
// written for an engine: no path, no control characters, no comma (Codex
// splits --image at commas); a clash keeps both files.
func TestAttachmentNamesInTheRun(t *testing.T) {
	dir := t.TempDir()
	files := []agentjob.Attached{
		file("../../outside.txt", board.MediaText, "one"),
		file("a\\b\x1b[31m\n\u202e.txt", board.MediaText, "two"),
		file("shot,1.png", board.MediaPNG, "three"),
		file("outside.txt", board.MediaText, "four"),
		file("outside.txt", board.MediaText, "one"),
	}
	got, err := writeAttachments(context.Background(), dir, files, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"outside.txt", "b[31m.txt", "shot_1.png", "outside-" + files[3].SHA256[:8] + ".txt", "outside.txt"}
	for i, f := range got {
		if f.path != filepath.Join(dir, attachmentsDir, want[i]) {
			t.Errorf("file %d at %q, want %q", i, f.path, want[i])
		}
		if b, err := os.ReadFile(f.path); err != nil || string(b) != string(files[i].Data) {
			t.Errorf("%s holds %q, %v", f.path, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.txt")); err == nil {
		t.Errorf("a file was written outside the run's directory")
	}
	brief := attachmentBrief(got)
	if strings.ContainsAny(brief, "\x1b\u202e") {
		t.Errorf("the brief carries a control character:\n%q", brief)
	}
}

// A link put where a file of the run goes is replaced, never followed;
// a file whose bytes do not match their hash is not written; a link
// where the directory goes is refused.
func TestAttachmentsInTheRunFollowNoLink(t *testing.T) {
	dir := t.TempDir()
	host := filepath.Join(t.TempDir(), "host.txt")
	if err := os.WriteFile(host, []byte("host"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, attachmentsDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(dir, attachmentsDir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	bad := file("bad.txt", board.MediaText, "x")
	bad.Data = []byte("y")
	got, err := writeAttachments(context.Background(), dir, []agentjob.Attached{file("notes.txt", board.MediaText, "mine"), bad}, false)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(host); string(b) != "host" {
		t.Errorf("the host file was written through the link: %q", b)
	}
	if fi, err := os.Lstat(got[0].path); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("notes.txt is not a regular file: %v, %v", fi, err)
	}
	if got[1].path != "" || !strings.Contains(got[1].note, "do not match their SHA-256") {
		t.Errorf("a file whose bytes do not match: %+v", got[1])
	}
	if _, err := os.Lstat(filepath.Join(dir, attachmentsDir, "bad.txt")); err == nil {
		t.Errorf("bad.txt was written")
	}

	linked := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(linked, attachmentsDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := writeAttachments(context.Background(), linked, []agentjob.Attached{file("a.txt", board.MediaText, "a")}, false); err == nil {
		t.Errorf("a link where the directory goes was followed")
	}
}

// Pictures are shown only to a model that takes images, at most
// agentjob.MaxAttachedImages of them, each within
// agentjob.MaxAttachedImage; every file is in the run either way.
func TestAttachmentImagesShown(t *testing.T) {
	var files []agentjob.Attached
	for i := range agentjob.MaxAttachedImages + 1 {
		files = append(files, file(fmt.Sprintf("shot%d.png", i), board.MediaPNG, fmt.Sprintf("picture %d", i)))
	}
	big := file("big.png", board.MediaPNG, "large")
	big.Size = agentjob.MaxAttachedImage + 1
	big.SHA256 = "" // its bytes stand for a larger file
	files = append(files, big, file("notes.txt", board.MediaText, "text"))

	got, err := writeAttachments(context.Background(), t.TempDir(), files, false)
	if err != nil {
		t.Fatal(err)
	}
	if imgs := runImages(got); len(imgs) != 0 {
		t.Errorf("a model without vision is shown %d pictures", len(imgs))
	}
	got, err = writeAttachments(context.Background(), t.TempDir(), files, true)
	if err != nil {
		t.Fatal(err)
	}
	imgs := runImages(got)
	if len(imgs) != agentjob.MaxAttachedImages || imgs[0].Name != "shot0.png" || string(imgs[0].Data) != "picture 0" {
		t.Errorf("shown %d pictures (%+v), want the first %d", len(imgs), imgs, agentjob.MaxAttachedImages)
	}
	for _, f := range got {
		if f.path == "" {
			t.Errorf("%s is not in the run: %s", f.Name, f.note)
		}
		if !f.image && f.Data != nil {
			t.Errorf("%s's bytes are held though it is not shown", f.Name)
		}
	}
	if b := attachmentBrief(got); strings.Count(b, "also shown with this message") != agentjob.MaxAttachedImages {
		t.Errorf("brief:\n%s", b)
	}
}
