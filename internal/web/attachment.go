package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
)

// attachField is the form field of files to attach, in the web's forms
// and the API's multipart requests.
const attachField = "attach"

// attachmentCSP is the policy of a served attachment: it may load
// nothing and runs sandboxed, so even a file a browser rendered as a
// page could run no script and reach no origin.
const attachmentCSP = "default-src 'none'; sandbox"

// multipartMemory is how much of a multipart body is kept in memory; the
// rest of a file waits in a temporary file the server removes after the
// request.
const multipartMemory = 8 << 20

// attachLimits are config.json's attachment limits (the defaults when it
// cannot be read).
func (s *Server) attachLimits() board.AttachmentLimits {
	if s.opts.Dir == "" {
		return board.DefaultAttachmentLimits
	}
	c, err := config.Load(s.opts.Dir.ConfigFile())
	if err != nil {
		return board.DefaultAttachmentLimits
	}
	return c.Attachments.Limits()
}

// isMultipart reports a multipart/form-data request.
func isMultipart(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "multipart/form-data"
}

// bodyLimit is the largest body of r: a multipart request may carry a
// ticket's worth of files beside its text, anything else maxBody.
func (s *Server) bodyLimit(r *http.Request) int64 {
	if r.Method == http.MethodPost && isMultipart(r) {
		return s.attachLimits().Ticket + maxBody
	}
	return maxBody
}

// tooLarge refuses an upload over limit by its declared length, before
// a byte of it is read. Other bodies meet the limit as they are read.
func tooLarge(r *http.Request, limit int64) error {
	if r.ContentLength <= limit || !isMultipart(r) {
		return nil
	}
	return &httpError{status: http.StatusRequestEntityTooLarge, code: "too_large",
		msg: fmt.Sprintf("the request is %s; one request carries at most %s (config: attachments.ticketMiB)",
			board.HumanSize(r.ContentLength), board.HumanSize(limit))}
}

// formAttachments reads the files of r's attach field, refusing one over
// the per-file limit by its size before reading it, and files that
// together would not fit a ticket. A request that is not multipart has
// none.
func (s *Server) formAttachments(r *http.Request) ([]board.NewAttachment, error) {
	if !isMultipart(r) {
		return nil, nil
	}
	if err := s.parseForm(r); err != nil {
		return nil, err
	}
	l := s.attachLimits()
	var out []board.NewAttachment
	var total int64
	for _, fh := range r.MultipartForm.File[attachField] {
		if fh.Size == 0 && fh.Filename == "" {
			continue // a file input left empty
		}
		if err := l.Check(board.SanitizeName(fh.Filename), fh.Size, total); err != nil {
			return nil, err
		}
		data, err := readPart(fh, l.File)
		if err != nil {
			return nil, err
		}
		total += int64(len(data))
		out = append(out, board.NewAttachment{Name: fh.Filename, Data: data, AuthorType: board.Human, AuthorName: s.opts.Author})
	}
	return out, nil
}

// readPart reads one uploaded file, at most limit bytes.
func readPart(fh *multipart.FileHeader, limit int64) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, badRequest("unreadable upload " + board.SanitizeName(fh.Filename) + ": " + err.Error())
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, badRequest("unreadable upload " + board.SanitizeName(fh.Filename) + ": " + err.Error())
	}
	if int64(len(data)) > limit {
		return nil, board.AttachmentLimits{File: limit}.FileTooLarge(board.SanitizeName(fh.Filename), int64(len(data)))
	}
	return data, nil
}

// storeAttachments attaches files to the ticket, to its comment when
// commentID is set.
func (s *Server) storeAttachments(ctx context.Context, ref board.Ref, commentID string, files []board.NewAttachment) ([]board.Attachment, error) {
	l := s.attachLimits()
	out := []board.Attachment{}
	for _, f := range files {
		f.CommentID = commentID
		a, err := s.store.AddAttachment(ctx, ref, f, l)
		if err != nil {
			return out, err
		}
		out = append(out, a)
	}
	return out, nil
}

// contentOrFiles is a comment's text, or, when only files come with it,
// a line naming them, since a comment is never empty.
func contentOrFiles(content string, files []board.NewAttachment) string {
	if strings.TrimSpace(content) != "" || len(files) == 0 {
		return content
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = board.SanitizeName(f.Name)
	}
	return "Attached " + strings.Join(names, ", ") + "."
}

// attachment serves one attachment of a ticket: pictures inline, every
// other file as a download, always as the type sniffed from its content,
// with nosniff and a sandboxing policy that lets it load and run nothing.
func (s *Server) attachment(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	a, data, err := s.store.AttachmentContent(r.Context(), ref, r.PathValue("id"))
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Security-Policy", attachmentCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Type", servedType(a))
	h.Set("Content-Length", strconv.Itoa(len(data)))
	h.Set("Cache-Control", "private, max-age=3600")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	disposition := "attachment"
	if a.IsImage() && r.URL.Query().Get("download") == "" {
		disposition = "inline"
	}
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": a.Name}))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, err = w.Write(data)
	}
	return err
}

// servedType is the Content-Type an attachment is served as: one of the
// sniffed types, never one a browser would run.
func servedType(a board.Attachment) string {
	switch a.MediaType {
	case board.MediaPNG, board.MediaJPEG, board.MediaGIF, board.MediaWebP, board.MediaPDF, board.MediaText:
		return a.MediaType
	}
	return board.MediaBinary
}

// parseForm parses a form body, a multipart one (files) included: plain
// ParseForm leaves a multipart body unread, and the CSRF field in it
// would never be seen.
func (s *Server) parseForm(r *http.Request) error {
	if !isMultipart(r) {
		if err := r.ParseForm(); err != nil {
			return bodyError(err)
		}
		return nil
	}
	if err := r.ParseMultipartForm(multipartMemory); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &httpError{status: http.StatusRequestEntityTooLarge, code: "too_large",
				msg: fmt.Sprintf("the request is larger than %s; one request carries at most a ticket's files (config: attachments.ticketMiB)",
					board.HumanSize(mbe.Limit))}
		}
		return bodyError(err)
	}
	return nil
}
