package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/board"
)

// commentWithFiles adds a person's comment with the files r carries:
// the files are read and checked first, so a refused file adds nothing.
func (s *Server) commentWithFiles(r *http.Request, ref board.Ref, content string) (board.Comment, error) {
	files, err := s.formAttachments(r)
	if err != nil {
		return board.Comment{}, err
	}
	c, err := s.comment(r.Context(), ref, contentOrFiles(content, files))
	if err != nil {
		return c, err
	}
	_, err = s.storeAttachments(r.Context(), ref, c.ID, files)
	return c, err
}

// returnWithFiles sends the work back with feedback and attaches r's
// files to the feedback comment.
func (s *Server) returnWithFiles(r *http.Request, ref board.Ref, feedback string) (board.Ticket, error) {
	files, err := s.formAttachments(r)
	if err != nil {
		return board.Ticket{}, err
	}
	t, err := s.requestChanges(r.Context(), ref, feedback)
	if err != nil || len(files) == 0 {
		return t, err
	}
	id, err := s.lastFeedback(r.Context(), ref)
	if err != nil {
		return t, err
	}
	_, err = s.storeAttachments(r.Context(), ref, id, files)
	return t, err
}

// lastFeedback is the ID of the ticket's newest feedback comment.
func (s *Server) lastFeedback(ctx context.Context, ref board.Ref) (string, error) {
	cs, err := s.store.Comments(ctx, ref)
	if err != nil {
		return "", err
	}
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Kind == board.KindFeedback {
			return cs[i].ID, nil
		}
	}
	return "", nil
}

// createWithFiles creates a ticket with the files r carries.
func (s *Server) createWithFiles(r *http.Request, slug string, in newTicketInput) (board.Ticket, error) {
	files, err := s.formAttachments(r)
	if err != nil {
		return board.Ticket{}, err
	}
	t, err := s.createTicket(r.Context(), slug, in)
	if err != nil {
		return t, err
	}
	_, err = s.storeAttachments(r.Context(), t.Ref(), "", files)
	return t, err
}

// multipartTicket reads a ticket from a multipart API request's fields:
// title, description, criterion (repeated), priority, state and parent.
func multipartTicket(r *http.Request) (newTicketInput, error) {
	if err := r.ParseMultipartForm(multipartMemory); err != nil {
		return newTicketInput{}, bodyError(err)
	}
	in := newTicketInput{Title: r.FormValue("title"), Description: r.FormValue("description"),
		Criteria: r.MultipartForm.Value["criterion"], State: r.FormValue("state"), Parent: r.FormValue("parent")}
	if v := r.FormValue("priority"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil {
			return in, badRequest("priority must be 0 (urgent) to 4 (none)")
		}
		in.Priority = &p
	}
	return in, nil
}

// withThumb returns c showing picture a, when it is one.
func (c card) withThumb(a board.Attachment) card {
	if a.ID != "" {
		c.Thumb = "/p/" + c.ProjectSlug + "/" + strconv.Itoa(c.Number) + "/attachments/" + a.ID
	}
	return c
}
