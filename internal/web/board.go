package web

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// This file holds the ticket operations the pages and the API share;
// status.go holds the status and run look-ups.

// pathRef returns the ticket named by the {slug} and {n} path segments.
func pathRef(r *http.Request) (board.Ref, error) {
	slug, num := r.PathValue("slug"), r.PathValue("n")
	if err := board.ValidateSlug(slug); err != nil {
		return board.Ref{}, &httpError{status: http.StatusNotFound, code: board.ENOTFOUND, msg: err.Error()}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return board.Ref{}, &httpError{status: http.StatusNotFound, code: board.ENOTFOUND,
			msg: fmt.Sprintf("ticket number %q must be a positive whole number, as in /p/%s/12", num, slug)}
	}
	return board.Ref{Project: slug, Number: n}, nil
}

// newTicketInput is what a person gives to create a ticket.
type newTicketInput struct {
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Criteria    []string `json:"criteria"`
	Priority    *int     `json:"priority"`
	State       string   `json:"state"`
	// Parent, when set, makes the ticket a sub-ticket of this one.
	Parent string `json:"parent"`
}

// createTicket validates in and creates the ticket in project slug.
func (s *Server) createTicket(ctx context.Context, slug string, in newTicketInput) (board.Ticket, error) {
	t := board.Ticket{ProjectSlug: slug, Title: strings.TrimSpace(in.Title), Description: in.Description,
		Criteria: cleanCriteria(in.Criteria), Priority: board.DefaultPriority, State: board.Backlog}
	if in.Priority != nil {
		t.Priority = *in.Priority
	}
	if in.State != "" {
		st, err := board.ParseState(in.State)
		if err != nil {
			return board.Ticket{}, err
		}
		t.State = st
	}
	if err := board.CheckNew(t); err != nil {
		return board.Ticket{}, err
	}
	if in.Parent != "" {
		return s.createChild(ctx, t, in.Parent)
	}
	return s.store.CreateTicket(ctx, t, board.Human)
}

// cleanCriteria drops blank criteria and trims the others.
func cleanCriteria(cs []string) []string {
	out := []string{}
	for _, c := range cs {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// ticketEdit is a person's edit of a ticket. UpdatedAt, when set, is the
// ticket's updatedAt as the person saw it: the edit is refused when the
// ticket changed since, so nobody overwrites a change they did not see.
type ticketEdit struct {
	Title       *string    `json:"title"`
	Description *string    `json:"description"`
	Criteria    *[]string  `json:"criteria"`
	Priority    *int       `json:"priority"`
	UpdatedAt   *time.Time `json:"updatedAt"`
}

// editTicket validates and applies an edit.
func (s *Server) editTicket(ctx context.Context, ref board.Ref, e ticketEdit) (board.Ticket, error) {
	var u board.TicketPatch
	if e.Title != nil {
		t := strings.TrimSpace(*e.Title)
		if err := board.ValidateTitle(t); err != nil {
			return board.Ticket{}, err
		}
		u.Title = &t
	}
	if e.Description != nil {
		if len(*e.Description) > board.MaxDescription {
			return board.Ticket{}, board.Errorf(board.EINVALID, "description is %d bytes; the limit is %d", len(*e.Description), board.MaxDescription)
		}
		u.Description = e.Description
	}
	if e.Criteria != nil {
		cs := cleanCriteria(*e.Criteria)
		if err := board.ValidateCriteria(cs); err != nil {
			return board.Ticket{}, err
		}
		u.Criteria = &cs
	}
	if e.Priority != nil {
		if err := board.ValidatePriority(*e.Priority); err != nil {
			return board.Ticket{}, err
		}
		u.Priority = e.Priority
	}
	if u.IsZero() {
		return board.Ticket{}, board.Errorf(board.EINVALID, "nothing to change; give at least one of title, description, criteria, priority")
	}
	u.IfUpdatedAt = e.UpdatedAt
	t, err := s.store.UpdateTicket(ctx, ref, u, board.Human)
	if board.ErrorCode(err) == board.ECONFLICT && e.UpdatedAt != nil {
		// Checked and refused inside the store's transaction; the current
		// version is read again only to say when it changed.
		if cur, cerr := s.store.Ticket(ctx, ref); cerr == nil {
			return board.Ticket{}, board.Errorf(board.ECONFLICT,
				"%s changed since you opened it (updated %s); your edit was not saved — review the new version and apply your edit again",
				ref, relTime(s.opts.Now(), cur.UpdatedAt))
		}
	}
	return t, err
}

// move moves a ticket as a person.
func (s *Server) move(ctx context.Context, ref board.Ref, state string) (board.Ticket, error) {
	st, err := board.ParseState(state)
	if err != nil {
		return board.Ticket{}, err
	}
	if st == board.Done && s.opts.Approve != nil {
		return s.approve(ctx, ref, "")
	}
	req := board.MoveRequest{To: st, Actor: board.Human}
	if err := s.checkLeaveDone(ctx, ref, req); err != nil {
		return board.Ticket{}, err
	}
	if err := s.checkVariantMove(ctx, ref); err != nil {
		return board.Ticket{}, err
	}
	return s.store.MoveTicket(ctx, ref, req, s.opts.Author)
}

// comment adds a person's comment; on a blocked ticket it is the answer
// that unblocks it.
func (s *Server) comment(ctx context.Context, ref board.Ref, content string) (board.Comment, error) {
	c := board.Comment{AuthorType: board.Human, AuthorName: s.opts.Author, Kind: board.KindNote, Content: content}
	if err := c.Validate(); err != nil {
		return board.Comment{}, err
	}
	return s.store.AddComment(ctx, ref, c)
}

// approve accepts the agent's work, with an optional note.
func (s *Server) approve(ctx context.Context, ref board.Ref, note string) (board.Ticket, error) {
	if note = strings.TrimSpace(note); note != "" {
		c := board.Comment{AuthorType: board.Human, AuthorName: s.opts.Author, Kind: board.KindApproval, Content: note}
		if err := c.Validate(); err != nil {
			return board.Ticket{}, err
		}
	}
	if s.opts.Approve != nil {
		return s.opts.Approve(ctx, ref, note)
	}
	t, err := s.store.MoveTicket(ctx, ref, board.MoveRequest{To: board.Done, Actor: board.Human}, s.opts.Author)
	if err != nil || note == "" {
		return t, err
	}
	_, err = s.store.AddComment(ctx, ref, board.Comment{AuthorType: board.Human, AuthorName: s.opts.Author,
		Kind: board.KindApproval, Content: note})
	return t, err
}

// requestChanges sends the work back with feedback, which is required.
func (s *Server) requestChanges(ctx context.Context, ref board.Ref, feedback string) (board.Ticket, error) {
	if strings.TrimSpace(feedback) == "" {
		return board.Ticket{}, board.Errorf(board.EINVALID, "feedback is required: say what to change")
	}
	if err := s.checkVariantMove(ctx, ref); err != nil {
		return board.Ticket{}, err
	}
	return s.store.MoveTicket(ctx, ref, board.MoveRequest{To: board.InProgress, Actor: board.Human, Feedback: feedback}, s.opts.Author)
}

// view.TicketDetail loads a ticket with its thread and runs.
func (s *Server) loadTicketDetail(ctx context.Context, ref board.Ref) (view.TicketDetail, error) {
	t, err := s.store.Ticket(ctx, ref)
	if err != nil {
		return view.TicketDetail{}, err
	}
	comments, err := s.store.Comments(ctx, ref)
	if err != nil {
		return view.TicketDetail{}, err
	}
	runs, err := s.store.Runs(ctx, ref)
	if err != nil {
		return view.TicketDetail{}, err
	}
	as, err := s.store.Approvals(ctx, ref)
	if err != nil {
		return view.TicketDetail{}, err
	}
	d := view.NewTicketDetail(t, comments, runs)
	d.Approvals = as
	if d.Attachments, err = s.store.Attachments(ctx, ref); err != nil {
		return view.TicketDetail{}, err
	}
	if err := d.LoadLinks(ctx, s.store, ref); err != nil {
		return view.TicketDetail{}, err
	}
	d.NotRun = d.WithWaiting(nil) // the page adds the project's blockers
	if p, err := s.store.Project(ctx, ref.Project); err == nil {
		l, err := s.store.Landing(ctx, ref)
		switch {
		case err == nil:
			d.SetLanding(p, &l)
		case board.ErrorCode(err) == board.ENOTFOUND:
			d.SetLanding(p, nil)
		default:
			return view.TicketDetail{}, err
		}
	}
	if d.Comments == nil {
		d.Comments = []board.Comment{}
	}
	for i, r := range runs {
		d.Runs[i] = view.NewRun(s.withRef(r, ref))
	}
	return d, nil
}
