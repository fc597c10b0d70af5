package storetest

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var attachmentCases = []testCase{
	{"AddAndRead", testAttachmentAddAndRead},
	{"SameContentOnce", testAttachmentSameContent},
	{"Limits", testAttachmentLimits},
	{"Refusals", testAttachmentRefusals},
	{"FirstImages", testAttachmentFirstImages},
}

// PNG returns a small real PNG picture of w × h pixels.
func PNG(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func mustAttach(t *testing.T, s store.Store, ref board.Ref, name string, data []byte) board.Attachment {
	t.Helper()
	a, err := s.AddAttachment(t.Context(), ref, board.NewAttachment{Name: name, Data: data, AuthorType: board.Human, AuthorName: "ana"},
		board.DefaultAttachmentLimits)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func testAttachmentAddAndRead(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	pic := PNG(t, 3, 2)
	before := lastEventID(t, s)
	a := mustAttach(t, s, tk.Ref(), "../../etc/screen\x00shot.png", pic)
	want := board.Attachment{ID: a.ID, TicketID: tk.ID, Name: "screenshot.png", MediaType: board.MediaPNG, Size: int64(len(pic)),
		SHA256: store.ContentSHA256(pic), AuthorType: board.Human, AuthorName: "ana", CreatedAt: a.CreatedAt}
	same(t, "attachment", a, want)
	wantRecent(t, "CreatedAt", a.CreatedAt)
	wantEvents(t, s, before, board.EventAttachmentAdded)

	clock.tick()
	c := mustComment(t, s, tk.Ref(), board.Agent, board.KindCompletion, "Done; the log:")
	log, err := s.AddAttachment(t.Context(), tk.Ref(), board.NewAttachment{CommentID: c.ID, Name: "run.log", Data: []byte("ok\n"),
		AuthorType: board.Agent, AuthorName: "bonsai"}, board.DefaultAttachmentLimits)
	if err != nil {
		t.Fatal(err)
	}
	if log.CommentID != c.ID || log.MediaType != board.MediaText {
		t.Errorf("log = %+v, want on comment %s as text", log, c.ID)
	}
	got, err := s.Attachments(t.Context(), tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	same(t, "attachments", got, []board.Attachment{a, log})

	ga, data, err := s.AttachmentContent(t.Context(), tk.Ref(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "read attachment", ga, a)
	if !bytes.Equal(data, pic) {
		t.Error("the bytes read back differ from the bytes attached")
	}
	other := ticketIn(t, s, "demo", board.Backlog)
	_, _, err = s.AttachmentContent(t.Context(), other.Ref(), a.ID)
	wantCode(t, err, board.ENOTFOUND, "not an attachment of")
	if got, _ := s.Attachments(t.Context(), other.Ref()); len(got) != 0 {
		t.Errorf("another ticket lists %d attachments", len(got))
	}
}

func testAttachmentSameContent(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	data := []byte("the same log\n")
	a := mustAttach(t, s, tk.Ref(), "a.log", data)
	b := mustAttach(t, s, tk.Ref(), "b.log", data)
	if a.ID == b.ID || a.SHA256 != b.SHA256 {
		t.Errorf("two attachings of one content: %+v and %+v, want two IDs, one SHA-256", a, b)
	}
	_, got, err := s.AttachmentContent(t.Context(), tk.Ref(), b.ID)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("read = %q, %v", got, err)
	}
}

func testAttachmentLimits(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	l := board.AttachmentLimits{File: 10, Ticket: 15}
	add := func(name string, n int) error {
		_, err := s.AddAttachment(t.Context(), tk.Ref(), board.NewAttachment{Name: name, Data: bytes.Repeat([]byte("x"), n),
			AuthorType: board.Human, AuthorName: "ana"}, l)
		return err
	}
	before := lastEventID(t, s)
	wantCode(t, add("big.txt", 11), board.EINVALID, "limited to 10 bytes a file (config: attachments.fileMiB)")
	if err := add("one.txt", 10); err != nil {
		t.Fatal(err)
	}
	wantCode(t, add("two.txt", 6), board.EINVALID, "a ticket holds at most 15 bytes (config: attachments.ticketMiB)")
	if err := add("three.txt", 5); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, s, before, board.EventAttachmentAdded, board.EventAttachmentAdded)
}

func testAttachmentRefusals(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	other := ticketIn(t, s, "demo", board.InProgress)
	c := mustComment(t, s, other.Ref(), board.Human, board.KindNote, "elsewhere")
	before := lastEventID(t, s)
	for _, tc := range []struct {
		name string
		ref  board.Ref
		n    board.NewAttachment
		code string
		msg  string
	}{
		{"empty", tk.Ref(), board.NewAttachment{Name: "e.txt", AuthorType: board.Human}, board.EINVALID, "e.txt is empty"},
		{"unknown author", tk.Ref(), board.NewAttachment{Name: "a", Data: []byte("x"), AuthorType: "bot"}, board.EINVALID, "unknown author type"},
		{"comment of another ticket", tk.Ref(), board.NewAttachment{CommentID: c.ID, Name: "a", Data: []byte("x"), AuthorType: board.Human},
			board.ENOTFOUND, "is not a comment of"},
		{"unknown ticket", board.Ref{Project: "demo", Number: 99}, board.NewAttachment{Name: "a", Data: []byte("x"), AuthorType: board.Human},
			board.ENOTFOUND, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.AddAttachment(t.Context(), tc.ref, tc.n, board.DefaultAttachmentLimits)
			wantCode(t, err, tc.code, tc.msg)
		})
	}
	wantEvents(t, s, before)
}

func testAttachmentFirstImages(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	a := ticketIn(t, s, "demo", board.InProgress)
	b := ticketIn(t, s, "demo", board.InProgress)
	o := ticketIn(t, s, "other", board.InProgress)
	mustAttach(t, s, a.Ref(), "notes.txt", []byte("text"))
	first := mustAttach(t, s, a.Ref(), "first.png", PNG(t, 1, 1))
	clock.tick()
	mustAttach(t, s, a.Ref(), "second.png", PNG(t, 2, 2))
	mustAttach(t, s, b.Ref(), "fake.png", []byte("<html><script>alert(1)</script>"))
	mustAttach(t, s, o.Ref(), "o.png", PNG(t, 1, 1))
	got, err := s.FirstImages(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[a.ID].ID != first.ID {
		var names []string
		for _, x := range got {
			names = append(names, x.Name)
		}
		t.Errorf("first images = %s, want first.png of %s only", strings.Join(names, ", "), a.Ref())
	}
}
