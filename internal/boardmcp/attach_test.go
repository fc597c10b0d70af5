package boardmcp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/boardmcp"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

// TestAttachTools: a person's MCP client attaches a picture with a
// comment, lists the ticket's files and reads the picture back as an
// image; HTML named .png is kept as text, and a file over the limit is
// refused before it is decoded.
func TestAttachTools(t *testing.T) {
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
	if _, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Work", State: board.InProgress}, board.Human); err != nil {
		t.Fatal(err)
	}
	limits := board.AttachmentLimits{File: 1 << 10, Ticket: 1 << 20}
	cs := connect(t, boardmcp.AttachTools(db, "alice", func() board.AttachmentLimits { return limits })...)
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2)))
	b64 := base64.StdEncoding.EncodeToString(b.Bytes())

	r := call(t, cs, "ticket_attach", map[string]any{"ticket": "demo#1", "name": "../shot.png", "data": b64, "comment": "The picture"})
	if r.IsError {
		t.Fatalf("ticket_attach: %s", text(r))
	}
	var a board.Attachment
	if err := json.Unmarshal([]byte(text(r)), &a); err != nil || a.Name != "shot.png" || a.MediaType != board.MediaPNG || a.CommentID == "" {
		t.Fatalf("attached %+v, %v", a, err)
	}
	r = call(t, cs, "ticket_attach", map[string]any{"ticket": "demo#1", "name": "x.png", "data": base64.StdEncoding.EncodeToString([]byte("<script>alert(1)</script>"))})
	if r.IsError || !strings.Contains(text(r), `"mediaType": "text/plain; charset=utf-8"`) {
		t.Errorf("HTML named .png: %s", text(r))
	}
	r = call(t, cs, "ticket_attach", map[string]any{"ticket": "demo#1", "name": "big.bin", "data": strings.Repeat("A", 4<<10)})
	if !r.IsError || !strings.Contains(text(r), "attachments are limited to 1.0 KiB a file") {
		t.Errorf("over the limit: %v %s", r.IsError, text(r))
	}
	r = call(t, cs, "ticket_attachments", map[string]any{"ticket": "demo#1"})
	if strings.Count(text(r), `"sha256"`) != 2 {
		t.Errorf("list: %s", text(r))
	}
	r = call(t, cs, "attachment_read", map[string]any{"ticket": "demo#1", "id": a.ID})
	var img *mcp.ImageContent
	for _, c := range r.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != "image/png" || !bytes.Equal(img.Data, b.Bytes()) {
		t.Errorf("attachment_read gave no picture: %+v", r.Content)
	}
}
