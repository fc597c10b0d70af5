package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// linkInput is a link as the API and the ticket page's form give it: the
// other ticket of the same project by number or reference ("4", "#4",
// "demo#4"), and the kind (blocked_by, the default, or parent).
type linkInput struct {
	Kind  string `json:"kind"`
	Other string `json:"other"`
}

// link returns the link in makes from ticket ref.
func (in linkInput) link(ref board.Ref) (board.Link, error) {
	kind := board.LinkKind(strings.TrimSpace(in.Kind))
	if kind == "" {
		kind = board.LinkBlockedBy
	}
	other := strings.TrimSpace(in.Other)
	o := board.Ref{Project: ref.Project}
	if n, err := strconv.Atoi(strings.TrimPrefix(other, "#")); err == nil {
		o.Number = n
	} else if o, err = board.ParseRef(other); err != nil {
		return board.Link{}, board.Errorf(board.EINVALID, "other ticket %q: give its number, as in 4 or demo#4", other)
	}
	return board.Link{Ticket: ref, Other: o, Kind: kind}, nil
}

func (s *Server) apiLink(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	var in linkInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	l, err := in.link(ref)
	if err != nil {
		return err
	}
	if err := s.store.LinkTickets(r.Context(), l, board.Human); err != nil {
		return err
	}
	return s.writeLinks(w, r, ref, http.StatusOK)
}

func (s *Server) apiUnlink(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	l, err := linkInput{Kind: r.PathValue("kind"), Other: r.PathValue("other")}.link(ref)
	if err != nil {
		return err
	}
	if err := s.store.UnlinkTickets(r.Context(), l, board.Human); err != nil {
		return err
	}
	return s.writeLinks(w, r, ref, http.StatusOK)
}

// writeLinks answers with the ticket's links after a change.
func (s *Server) writeLinks(w http.ResponseWriter, r *http.Request, ref board.Ref, status int) error {
	ls, err := s.store.TicketLinks(r.Context(), ref)
	if err != nil {
		return err
	}
	return writeJSON(w, status, ls)
}

// linkForm adds (or, with remove set, removes) a link from the ticket
// page.
func (s *Server) linkForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	in := linkInput{Kind: r.PostFormValue("kind"), Other: r.PostFormValue("other")}
	l, err := in.link(ref)
	if err == nil {
		if r.PostFormValue("remove") != "" {
			err = s.store.UnlinkTickets(r.Context(), l, board.Human)
		} else {
			err = s.store.LinkTickets(r.Context(), l, board.Human)
		}
	}
	return s.formResult(w, r, ref, err, "#links", func(v *ticketPageView, msg string) {
		v.Forms.LinkOther, v.Forms.LinkErr = in.Other, msg
	})
}

// createChild creates t as a sub-ticket of parent (a number or reference
// in t's project).
func (s *Server) createChild(ctx context.Context, t board.Ticket, parent string) (board.Ticket, error) {
	l, err := linkInput{Kind: string(board.LinkParent), Other: parent}.link(board.Ref{Project: t.ProjectSlug})
	if err != nil {
		return board.Ticket{}, err
	}
	if l.Other.Project != t.ProjectSlug {
		return board.Ticket{}, board.Errorf(board.EINVALID, "parent %s is in another project than %s; a sub-ticket is in its parent's project", l.Other, t.ProjectSlug)
	}
	ts, err := s.store.CreateSubTickets(ctx, store.SubTickets{Parent: l.Other, Tickets: []board.Ticket{t}, Actor: board.Human})
	if err != nil {
		return board.Ticket{}, err
	}
	return ts[0], nil
}

// withProgress returns c with the progress of its sub-tickets, from
// progress (SubTicketProgress), e.g. "2/3 done".
func (c card) withProgress(progress map[int]board.Progress) card {
	if p, ok := progress[c.Number]; ok {
		c.Progress = p.String()
	}
	return c
}
