package boardmcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// AttachBoard is what the attachment tools read and write: the store's
// attachments (store.Attachments) and the comments they may go on.
type AttachBoard interface {
	AddAttachment(ctx context.Context, ref board.Ref, a board.NewAttachment, limits board.AttachmentLimits) (board.Attachment, error)
	Attachments(ctx context.Context, ref board.Ref) ([]board.Attachment, error)
	AttachmentContent(ctx context.Context, ref board.Ref, id string) (board.Attachment, []byte, error)
	AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error)
}

// maxMCPTextShown is how much of a text attachment attachment_read
// returns.
const maxMCPTextShown = 64 << 10

// AttachTools returns a person's attachment tools: attach a file (base64)
// to a ticket, with an optional comment, list a ticket's files and read
// one. limits are config.json's, read at each call.
func AttachTools(b AttachBoard, author string, limits func() board.AttachmentLimits) []tool.Tool {
	if author == "" {
		author = "human"
	}
	a := &attacher{b: b, author: author, limits: limits}
	p := &person{}
	return []tool.Tool{
		p.tool("ticket_attach", false, "Attach a file (a screenshot, a log, a PDF) to a ticket as a person, optionally with a comment. "+
			"The file's type is sniffed from its bytes; HTML and SVG are kept as text.",
			`{"type":"object","properties":{"ticket":{"type":"string","description":"the ticket, as slug#n"},`+
				`"name":{"type":"string","description":"the file name"},"data":{"type":"string","description":"the file's bytes, base64"},`+
				`"comment":{"type":"string","description":"Markdown comment the file goes with (optional)"}},`+
				`"required":["ticket","name","data"],"additionalProperties":false}`, a.attach),
		p.tool("ticket_attachments", true, "List a ticket's attached files: id, name, type, size, SHA-256, and the comment each came with.",
			`{"type":"object","properties":{"ticket":{"type":"string","description":"the ticket, as slug#n"}},"required":["ticket"],"additionalProperties":false}`, a.list),
		p.tool("attachment_read", true, "Read one attached file of a ticket: a picture as an image, text as text, anything else described.",
			`{"type":"object","properties":{"ticket":{"type":"string","description":"the ticket, as slug#n"},"id":{"type":"string","description":"the attachment's id (ticket_attachments)"}},`+
				`"required":["ticket","id"],"additionalProperties":false}`, a.read),
	}
}

type attacher struct {
	b      AttachBoard
	author string
	limits func() board.AttachmentLimits
}

func (a *attacher) attach(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var in struct {
		Ticket, Name, Data, Comment string
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return tool.Result{}, err
	}
	ref, err := parseRef(in.Ticket)
	if err != nil {
		return tool.Result{}, err
	}
	l := a.limits()
	if n := base64.StdEncoding.DecodedLen(len(in.Data)); l.File > 0 && int64(n) > l.File+3 {
		return tool.Result{}, l.FileTooLarge(board.SanitizeName(in.Name), int64(n))
	}
	data, err := base64.StdEncoding.DecodeString(in.Data)
	if err != nil {
		return tool.Result{}, board.Errorf(board.EINVALID, "data is not base64: %v", err)
	}
	f := board.NewAttachment{Name: in.Name, Data: data, AuthorType: board.Human, AuthorName: a.author}
	if f, err = f.Validate(); err != nil {
		return tool.Result{}, err
	}
	if err := l.Check(f.Name, int64(len(data)), 0); err != nil {
		return tool.Result{}, err
	}
	if in.Comment != "" {
		c, err := a.b.AddComment(ctx, ref, board.Comment{AuthorType: board.Human, AuthorName: a.author, Kind: board.KindNote, Content: in.Comment})
		if err != nil {
			return tool.Result{}, err
		}
		f.CommentID = c.ID
	}
	at, err := a.b.AddAttachment(ctx, ref, f, l)
	if err != nil {
		return tool.Result{}, err
	}
	return jsonResult(at)
}

func (a *attacher) list(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var in struct{ Ticket string }
	if err := json.Unmarshal(raw, &in); err != nil {
		return tool.Result{}, err
	}
	ref, err := parseRef(in.Ticket)
	if err != nil {
		return tool.Result{}, err
	}
	as, err := a.b.Attachments(ctx, ref)
	if err != nil {
		return tool.Result{}, err
	}
	return jsonResult(as)
}

func (a *attacher) read(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var in struct{ Ticket, ID string }
	if err := json.Unmarshal(raw, &in); err != nil {
		return tool.Result{}, err
	}
	ref, err := parseRef(in.Ticket)
	if err != nil {
		return tool.Result{}, err
	}
	at, data, err := a.b.AttachmentContent(ctx, ref, in.ID)
	if err != nil {
		return tool.Result{}, err
	}
	head := fmt.Sprintf("%s (%s, %s, sha256 %s)", at.Name, at.MediaType, board.HumanSize(at.Size), at.SHA256)
	switch {
	case at.IsImage():
		return tool.Result{Content: []llm.Part{llm.Text(head), llm.Image(at.MediaType, base64.StdEncoding.EncodeToString(data))}}, nil
	case at.MediaType == board.MediaText:
		if len(data) > maxMCPTextShown {
			return tool.Text(head + "\n\n" + string(data[:maxMCPTextShown]) + "\n[… cut]"), nil
		}
		return tool.Text(head + "\n\n" + string(data)), nil
	}
	return tool.Text(head + ": download it from the web UI or the API"), nil
}
