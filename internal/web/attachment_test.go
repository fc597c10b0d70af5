package web

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
)

// pngBytes is a real 2 × 2 PNG picture.
func pngBytes(t testing.TB) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// upload is one file of a multipart request.
type upload struct {
	name string
	data []byte
}

// multipartBody writes fields and files (field "attach") as a multipart
// body.
func multipartBody(t testing.TB, fields map[string]string, files ...upload) (io.Reader, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for _, f := range files {
		w, err := mw.CreateFormFile(attachField, f.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.data)
	}
	mw.Close()
	return &b, mw.FormDataContentType()
}

// apiMultipart posts a multipart body to the API with the bearer token.
func (e *env) apiMultipart(t testing.TB, path string, fields map[string]string, files ...upload) response {
	t.Helper()
	body, ct := multipartBody(t, fields, files...)
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+path, body)
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", ct)
	return send(t, anon(), req)
}

// attach stores a file on a ticket directly.
func (e *env) attach(t testing.TB, ref board.Ref, name string, data []byte) board.Attachment {
	t.Helper()
	a, err := e.db.AddAttachment(context.Background(), ref, board.NewAttachment{Name: name, Data: data, AuthorType: board.Human,
		AuthorName: "ana"}, board.DefaultAttachmentLimits)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAPI_MultipartTicketAndComment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	res := e.apiMultipart(t, "/api/projects/demo/tickets", map[string]string{"title": "The menu is cut off", "state": "IN_PROGRESS"},
		upload{"shot.png", pngBytes(t)})
	wantStatus(t, res, http.StatusCreated)
	res = e.apiMultipart(t, "/api/projects/demo/tickets/1/comments", map[string]string{"content": "And the log"},
		upload{"../../run.log", []byte("boom\n")})
	wantStatus(t, res, http.StatusCreated)
	var c board.Comment
	res.json(t, &c)
	// Files alone make a comment naming them.
	res = e.apiMultipart(t, "/api/projects/demo/tickets/1/comments", nil, upload{"second.png", pngBytes(t)})
	wantStatus(t, res, http.StatusCreated)
	wantBody(t, res, "Attached second.png.")

	res = e.api(t, http.MethodGet, "/api/projects/demo/tickets/1", "")
	wantStatus(t, res, http.StatusOK)
	var d struct {
		Attachments []board.Attachment `json:"attachments"`
	}
	res.json(t, &d)
	if len(d.Attachments) != 3 {
		t.Fatalf("attachments = %+v, want 3", d.Attachments)
	}
	if a := d.Attachments[0]; a.Name != "shot.png" || a.MediaType != board.MediaPNG || a.CommentID != "" {
		t.Errorf("ticket's file = %+v", a)
	}
	if a := d.Attachments[1]; a.Name != "run.log" || a.CommentID != c.ID {
		t.Errorf("comment's file = %+v, want run.log on %s", a, c.ID)
	}
	res = e.api(t, http.MethodGet, "/api/projects/demo/tickets/1/attachments/"+d.Attachments[1].ID, "")
	wantStatus(t, res, http.StatusOK)
	if res.body != "boom\n" || res.header.Get("Content-Disposition") != `attachment; filename=run.log` {
		t.Errorf("download = %q with %q", res.body, res.header.Get("Content-Disposition"))
	}

	// A sub-ticket with its picture, through the same multipart form.
	res = e.apiMultipart(t, "/api/projects/demo/tickets", map[string]string{"title": "Only the header", "parent": "1"},
		upload{"header.png", pngBytes(t)})
	wantStatus(t, res, http.StatusCreated)
	res = e.api(t, http.MethodGet, "/api/projects/demo/tickets/2", "")
	wantStatus(t, res, http.StatusOK)
	var sub struct {
		Attachments []board.Attachment `json:"attachments"`
		Links       *board.Links       `json:"links"`
	}
	res.json(t, &sub)
	if len(sub.Attachments) != 1 || sub.Links == nil || sub.Links.Parent == nil || sub.Links.Parent.Ref.Number != 1 {
		t.Errorf("multipart sub-ticket = %+v links %+v, want header.png under demo#1", sub.Attachments, sub.Links)
	}
}

// TestAttachments_Attacks: what a file can do when a person opens it. Every
// file is served as the type sniffed from its content, with nosniff and a
// policy that sandboxes it and lets it load nothing; only pictures are
// inline; the name in the header is the sanitised one.
func TestAttachments_Attacks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Files", board.InProgress)
	pic := pngBytes(t)
	cases := []struct {
		name, file  string
		data        []byte
		ctype, disp string
	}{
		{"svg with script", "logo.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(document.domain)</script></svg>`),
			board.MediaText, "attachment"},
		{"html named .png", "shot.png", []byte(`<html><body><script>fetch('/api/projects').then(r=>r.text()).then(alert)</script>`),
			board.MediaText, "attachment"},
		{"png header on html", "trick.png", append([]byte("\x89PNG\r\n\x1a\n"), []byte("<script>alert(1)</script>")...),
			board.MediaBinary, "attachment"},
		{"polyglot png and html", "poly.png", append(append([]byte(nil), pic...), []byte("<html><script>alert(1)</script>")...),
			board.MediaPNG, "inline"},
		{"javascript named .js", "app.js", []byte("alert(1)"), board.MediaText, "attachment"},
		{"pdf", "spec.pdf", []byte("%PDF-1.4\n/JavaScript (app.alert(1))\n"), board.MediaPDF, "attachment"},
		{"name with a quote and a newline", "a\"b\r\nX-Evil: 1.png", pic, board.MediaPNG, "inline"},
	}
	for _, tc := range cases {
		a := e.attach(t, tk.Ref(), tc.file, tc.data)
		t.Run(tc.name, func(t *testing.T) {
			res := e.get(t, e.browser(t), fmt.Sprintf("/p/demo/%d/attachments/%s", tk.Number, a.ID))
			wantStatus(t, res, http.StatusOK)
			h := res.header
			if got := h.Get("Content-Type"); got != tc.ctype {
				t.Errorf("Content-Type = %q, want %q", got, tc.ctype)
			}
			if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q", got)
			}
			if got := h.Get("Content-Security-Policy"); got != attachmentCSP {
				t.Errorf("Content-Security-Policy = %q, want %q", got, attachmentCSP)
			}
			if got := h.Get("Content-Disposition"); !strings.HasPrefix(got, tc.disp+";") {
				t.Errorf("Content-Disposition = %q, want %s", got, tc.disp)
			}
			if h.Get("X-Evil") != "" || strings.ContainsAny(h.Get("Content-Disposition"), "\r\n") {
				t.Errorf("the name split the header: %v", h)
			}
			if res.body != string(tc.data) {
				t.Errorf("body differs from the file")
			}
		})
	}
	// Asking for a picture as a download makes it one.
	a := e.attach(t, tk.Ref(), "pic.png", pic)
	res := e.get(t, e.browser(t), fmt.Sprintf("/p/demo/%d/attachments/%s?download=1", tk.Number, a.ID))
	if got := res.header.Get("Content-Disposition"); !strings.HasPrefix(got, "attachment;") {
		t.Errorf("download: Content-Disposition = %q", got)
	}
	// Behind the token like every page; another ticket's path does not
	// reach it.
	res = e.get(t, anon(), fmt.Sprintf("/p/demo/%d/attachments/%s", tk.Number, a.ID))
	if res.status != http.StatusUnauthorized || strings.Contains(res.body, "PNG") {
		t.Errorf("anonymous: status %d", res.status)
	}
	other := e.ticket(t, "demo", "Other", board.InProgress)
	res = e.get(t, e.browser(t), fmt.Sprintf("/p/demo/%d/attachments/%s", other.Number, a.ID))
	wantStatus(t, res, http.StatusNotFound)
}

// TestAttachments_HugeUploadRefusedUnread: a 2 GiB upload is refused by its
// length before the body is read, and one that hides its length is cut
// off at the limit; nothing is stored.
func TestAttachments_HugeUploadRefusedUnread(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Files", board.InProgress)
	path := fmt.Sprintf("%s/api/projects/demo/tickets/%d/comments", e.ts.URL, tk.Number)

	// A declared 2 GiB: the server answers without reading it.
	counted := &countingReader{r: io.LimitReader(zeros{}, 2<<30)}
	req, _ := http.NewRequest(http.MethodPost, path, counted)
	req.ContentLength = 2 << 30
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	res := send(t, anon(), req)
	wantStatus(t, res, http.StatusRequestEntityTooLarge)
	wantBody(t, res, "the request is 2.0 GiB; one request carries at most 101.0 MiB")
	if n := counted.n.Load(); n > 64<<20 {
		t.Errorf("the server read %d bytes of a refused upload", n)
	}

	// A file over the per-file limit inside a body that fits.
	c, err := config.Load(e.dir.ConfigFile())
	if err != nil {
		t.Fatal(err)
	}
	// A ticket's files at most 4 MiB from here: the chunked body below
	// is cut off at that limit, not after the default's 100 MiB (seconds
	// of CPU under -race).
	c.Attachments.FileMiB, c.Attachments.TicketMiB = 1, 4
	if err := config.Save(e.dir.ConfigFile(), c); err != nil {
		t.Fatal(err)
	}
	res = e.apiMultipart(t, "/api/projects/demo/tickets/1/comments", map[string]string{"content": "big"},
		upload{"big.bin", bytes.Repeat([]byte{0}, 2<<20)})
	wantStatus(t, res, http.StatusBadRequest)
	wantBody(t, res, "big.bin is 2.0 MiB; attachments are limited to 1.0 MiB a file (config: attachments.fileMiB)")

	// A chunked body (no length) is cut off at the limit.
	counted = &countingReader{r: io.MultiReader(strings.NewReader("--x\r\nContent-Disposition: form-data; name=\"attach\"; filename=\"z\"\r\n\r\n"),
		io.LimitReader(zeros{}, 2<<30))}
	req, _ = http.NewRequest(http.MethodPost, path, counted)
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	res = send(t, anon(), req)
	wantStatus(t, res, http.StatusRequestEntityTooLarge)
	if n := counted.n.Load(); n > 64<<20 {
		t.Errorf("the server read %d bytes of an unbounded upload", n)
	}
	as, _ := e.db.Attachments(context.Background(), tk.Ref())
	cs, _ := e.db.Comments(context.Background(), tk.Ref())
	if len(as) != 0 || len(cs) != 0 {
		t.Errorf("refused uploads stored %d files and %d comments", len(as), len(cs))
	}
}

// zeros reads zeros forever.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// countingReader counts what was read from r. The count is atomic: the
// client's transport may still be writing the body while the test reads
// it after the answer came.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestPages_AttachFromTheCommentForm: the comment box's file picker posts
// multipart with the CSRF field; the page shows the picture inline and
// the other file as a download.
func TestPages_AttachFromTheCommentForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Files", board.InProgress)
	c := e.browser(t)
	page := e.get(t, c, "/p/demo/1")
	wantBody(t, page, `enctype="multipart/form-data"`, `type="file" id="reply-files" name="attach" multiple`)

	body, ct := multipartBody(t, map[string]string{"content": "See the picture", csrfField: e.srv.auth.csrf},
		upload{"shot.png", pngBytes(t)}, upload{"notes.txt", []byte("<b>notes</b>")})
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/p/demo/1/comments", body)
	req.Header.Set("Content-Type", ct)
	wantStatus(t, send(t, c, req), http.StatusSeeOther)
	as, err := e.db.Attachments(context.Background(), tk.Ref())
	if err != nil || len(as) != 2 {
		t.Fatalf("attachments = %+v, %v", as, err)
	}
	page = e.get(t, c, "/p/demo/1")
	wantBody(t, page, `<img src="/p/demo/1/attachments/`+as[0].ID+`"`, `alt="shot.png"`,
		`href="/p/demo/1/attachments/`+as[1].ID+`?download=1" download>notes.txt</a>`)

	// Without the CSRF field the upload is refused and nothing is stored.
	body, ct = multipartBody(t, map[string]string{"content": "forged"}, upload{"x.png", pngBytes(t)})
	req, _ = http.NewRequest(http.MethodPost, e.ts.URL+"/p/demo/1/comments", body)
	req.Header.Set("Content-Type", ct)
	wantStatus(t, send(t, c, req), http.StatusForbidden)
	if as, _ := e.db.Attachments(context.Background(), tk.Ref()); len(as) != 2 {
		t.Errorf("a forged upload stored a file: %d", len(as))
	}
}

// TestPages_CardThumbnail: a ticket's first picture is its card's
// thumbnail; a file that only claims to be one is not.
func TestPages_CardThumbnail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	a := e.ticket(t, "demo", "With a picture", board.InProgress)
	b := e.ticket(t, "demo", "With a fake", board.InProgress)
	pic := e.attach(t, a.Ref(), "shot.png", pngBytes(t))
	e.attach(t, b.Ref(), "fake.png", []byte("<script>alert(1)</script>"))
	page := e.get(t, e.browser(t), "/p/demo")
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, `<img class="card-thumb" src="/p/demo/1/attachments/`+pic.ID+`"`)
	if n := strings.Count(page.body, `class="card-thumb"`); n != 1 {
		t.Errorf("%d thumbnails, want 1", n)
	}
}

// TestShared_AttachmentFromAnotherMachine: on a Postgres board, a file a
// worker on another machine attaches (its own data directory, its own
// connection) is served by `bonsai serve` from the store, and a file
// uploaded through the server reaches the worker.
func TestShared_AttachmentFromAnotherMachine(t *testing.T) {
	t.Parallel()
	e, worker := newSharedEnv(t)
	ctx := context.Background()
	if _, err := worker.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "https://example.com/demo.git",
		DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	tk, err := worker.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Shared", State: board.InProgress}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	pic := pngBytes(t)
	a, err := worker.AddAttachment(ctx, tk.Ref(), board.NewAttachment{Name: "evidence.png", Data: pic, AuthorType: board.Agent,
		AuthorName: "bonsai"}, board.DefaultAttachmentLimits)
	if err != nil {
		t.Fatal(err)
	}
	c := e.browser(t)
	res := e.get(t, c, fmt.Sprintf("/p/demo/%d/attachments/%s", tk.Number, a.ID))
	wantStatus(t, res, http.StatusOK)
	if res.body != string(pic) || res.header.Get("Content-Type") != board.MediaPNG {
		t.Errorf("served %q as %s", res.body[:min(len(res.body), 8)], res.header.Get("Content-Type"))
	}
	page := e.get(t, c, fmt.Sprintf("/p/demo/%d", tk.Number))
	wantBody(t, page, `alt="evidence.png"`)
	if entries, _ := os.ReadDir(e.dir.Path("attachments")); len(entries) != 0 {
		t.Errorf("the server's data directory holds %d attachment files; a shared board keeps them in the store", len(entries))
	}

	res = e.apiMultipart(t, fmt.Sprintf("/api/projects/demo/tickets/%d/comments", tk.Number), map[string]string{"content": "log"},
		upload{"run.log", []byte("uploaded\n")})
	wantStatus(t, res, http.StatusCreated)
	as, err := worker.Attachments(ctx, tk.Ref())
	if err != nil || len(as) != 2 {
		t.Fatalf("the worker sees %+v, %v", as, err)
	}
	if _, data, err := worker.AttachmentContent(ctx, tk.Ref(), as[1].ID); err != nil || string(data) != "uploaded\n" {
		t.Errorf("the worker reads %q, %v", data, err)
	}
}

// TestPages_ReturnWithAPicture: the review form's Request changes takes a
// file, attached to the feedback comment.
func TestPages_ReturnWithAPicture(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Review me", board.InProgress)
	e.toVerification(t, tk.Ref())
	c := e.browser(t)
	wantBody(t, e.get(t, c, "/p/demo/1"), `id="feedback-files" name="attach" multiple`)
	body, ct := multipartBody(t, map[string]string{"feedback": "The menu is cut off here", csrfField: e.srv.auth.csrf},
		upload{"menu.png", pngBytes(t)})
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/p/demo/1/return", body)
	req.Header.Set("Content-Type", ct)
	wantStatus(t, send(t, c, req), http.StatusSeeOther)
	ctx := context.Background()
	cs, _ := e.db.Comments(ctx, tk.Ref())
	as, _ := e.db.Attachments(ctx, tk.Ref())
	if len(as) != 1 || len(cs) == 0 || as[0].CommentID != cs[len(cs)-1].ID || cs[len(cs)-1].Kind != board.KindFeedback {
		t.Errorf("attachments %+v on comments %+v, want menu.png on the feedback", as, cs)
	}
}

// TestPages_AttachmentNameIsInert: a file name carrying markup shows as
// text on the ticket page and in its links.
func TestPages_AttachmentNameIsInert(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Names", board.InProgress)
	e.attach(t, tk.Ref(), `"><img src=x onerror=alert(1)>.png`, pngBytes(t))
	e.attach(t, tk.Ref(), `<b onmouseover=alert(2)>.txt`, []byte("x"))
	page := e.get(t, e.browser(t), "/p/demo/1")
	wantStatus(t, page, http.StatusOK)
	for _, bad := range []string{"<img src=x onerror", "<b onmouseover"} {
		if strings.Contains(page.body, bad) {
			t.Errorf("the page holds %q as markup", bad)
		}
	}
	wantBody(t, page, "&lt;b onmouseover=alert(2)&gt;.txt", "onerror=alert(1)&gt;.png")
}
