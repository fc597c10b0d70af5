package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// A DONE ticket whose work landed stays DONE; reopening it opens a
// follow-up ticket (board.FollowUp), as `bonsai ticket reopen` does.

// landingOf is a ticket's landing record, empty when it has none.
func (s *Server) landingOf(ctx context.Context, ref board.Ref) (board.Landing, error) {
	l, err := s.store.Landing(ctx, ref)
	if board.ErrorCode(err) == board.ENOTFOUND {
		return board.Landing{Ref: ref}, nil
	}
	return l, err
}

// checkLeaveDone refuses a person's move of a DONE ticket whose work
// landed (board.CheckLeaveDone).
func (s *Server) checkLeaveDone(ctx context.Context, ref board.Ref, req board.MoveRequest) error {
	t, err := s.store.Ticket(ctx, ref)
	if err != nil || t.State != board.Done {
		return err
	}
	l, err := s.landingOf(ctx, ref)
	if err != nil {
		return err
	}
	return board.CheckLeaveDone(t, l, req)
}

// reopen opens the follow-up of DONE ticket ref and comments on the
// original, as the person running the server.
func (s *Server) reopen(ctx context.Context, ref board.Ref, title, note string, criteria []string) (board.Ticket, error) {
	t, err := s.store.Ticket(ctx, ref)
	if err != nil {
		return board.Ticket{}, err
	}
	l, err := s.landingOf(ctx, ref)
	if err != nil {
		return board.Ticket{}, err
	}
	f, err := board.FollowUp(t, l, title, note, criteria)
	if err != nil {
		return board.Ticket{}, err
	}
	if f, err = s.store.CreateTicket(ctx, f, board.Human); err != nil {
		return board.Ticket{}, err
	}
	_, err = s.store.AddComment(ctx, ref, board.FollowUpComment(f, s.opts.Author))
	return f, err
}

// reopenForm is the ticket page's "Reopen as follow-up": it opens the
// follow-up and shows it.
func (s *Server) reopenForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	note := r.PostFormValue("description")
	f, err := s.reopen(r.Context(), ref, "", note, nil)
	if err == nil {
		http.Redirect(w, r, "/p/"+f.ProjectSlug+"/"+strconv.Itoa(f.Number), http.StatusSeeOther)
		return nil
	}
	return s.formResult(w, r, ref, err, "", func(v *ticketPageView, msg string) {
		v.Forms.ReopenNote, v.Forms.ReopenErr = note, msg
	})
}

// apiReopen is POST /api/projects/{slug}/tickets/{n}/reopen: the follow-up,
// 201.
func (s *Server) apiReopen(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	var in struct {
		Title       string   `json:"title"`
		Description string   `json:"description"`
		Criteria    []string `json:"criteria"`
	}
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &in); err != nil {
			return err
		}
	}
	f, err := s.reopen(r.Context(), ref, strings.TrimSpace(in.Title), in.Description, in.Criteria)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, view.NewTicket(f))
}
