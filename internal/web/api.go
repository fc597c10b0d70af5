package web

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
)

// decodeJSON reads a JSON request body into v, refusing unknown fields so a
// misspelt field is an error rather than silently ignored.
func decodeJSON(r *http.Request, v any) error {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return &httpError{status: http.StatusUnsupportedMediaType, code: board.EINVALID,
			msg: "send a JSON body with Content-Type: application/json"}
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return bodyError(err)
		}
		if errors.Is(err, io.EOF) {
			return badRequest("the request body is empty; send a JSON object")
		}
		return badRequest("invalid JSON body: " + err.Error())
	}
	return nil
}

func (s *Server) apiProjects(w http.ResponseWriter, r *http.Request) error {
	all, _ := strconv.ParseBool(r.URL.Query().Get("all"))
	ps, err := s.store.Projects(r.Context(), store.ProjectFilter{IncludeArchived: all})
	if err != nil {
		return err
	}
	if ps == nil {
		ps = []board.Project{}
	}
	return writeJSON(w, http.StatusOK, ps)
}

func (s *Server) apiCreateProject(w http.ResponseWriter, r *http.Request) error {
	var in newProjectInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p, err := s.createProject(r.Context(), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, view.ProjectDetail{Project: p, Counts: view.NewStateCounts(nil)})
}

func (s *Server) apiProject(w http.ResponseWriter, r *http.Request) error {
	p, err := s.store.Project(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	return s.writeProject(r.Context(), w, http.StatusOK, p)
}

func (s *Server) apiTickets(w http.ResponseWriter, r *http.Request) error {
	f := store.TicketFilter{ProjectSlug: r.PathValue("slug")}
	if _, err := s.store.Project(r.Context(), f.ProjectSlug); err != nil {
		return err
	}
	if st := r.URL.Query().Get("state"); st != "" {
		var err error
		if f.State, err = board.ParseState(st); err != nil {
			return err
		}
	}
	ts, err := s.store.Tickets(r.Context(), f)
	if err != nil {
		return err
	}
	views := make([]view.Ticket, len(ts))
	for i, t := range ts {
		views[i] = view.NewTicket(t)
	}
	return writeJSON(w, http.StatusOK, views)
}

func (s *Server) apiCreateTicket(w http.ResponseWriter, r *http.Request) error {
	var in newTicketInput
	var err error
	if isMultipart(r) {
		in, err = multipartTicket(r)
	} else {
		err = decodeJSON(r, &in)
	}
	if err != nil {
		return err
	}
	t, err := s.createWithFiles(r, r.PathValue("slug"), in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/projects/"+t.ProjectSlug+"/tickets/"+strconv.Itoa(t.Number))
	return writeJSON(w, http.StatusCreated, view.NewTicket(t))
}

func (s *Server) apiTicket(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	d, err := s.loadTicketDetail(r.Context(), ref)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

func (s *Server) apiEditTicket(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	var e ticketEdit
	if err := decodeJSON(r, &e); err != nil {
		return err
	}
	t, err := s.editTicket(r.Context(), ref, e)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, view.NewTicket(t))
}

func (s *Server) apiMove(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	var in struct {
		State string `json:"state"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	t, err := s.move(r.Context(), ref, in.State)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, view.NewTicket(t))
}

func (s *Server) apiComment(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	var in struct {
		Content string `json:"content"`
	}
	if isMultipart(r) {
		in.Content = r.FormValue("content")
	} else if err := decodeJSON(r, &in); err != nil {
		return err
	}
	c, err := s.commentWithFiles(r, ref, in.Content)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, c)
}

func (s *Server) apiApprove(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	var in struct {
		Comment string `json:"comment"`
	}
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &in); err != nil {
			return err
		}
	}
	t, err := s.approve(r.Context(), ref, in.Comment)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, view.NewTicket(t))
}

func (s *Server) apiReturn(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	var in struct {
		Feedback string `json:"feedback"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	t, err := s.requestChanges(r.Context(), ref, in.Feedback)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, view.NewTicket(t))
}

func (s *Server) apiStatus(w http.ResponseWriter, r *http.Request) error {
	v, err := s.status(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

func (s *Server) apiRun(w http.ResponseWriter, r *http.Request) error {
	v, err := s.findRun(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

// maxEventsPage is the most events one GET /api/events returns.
const maxEventsPage = 1000

func (s *Server) apiEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	after, limit := int64(0), 100
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return badRequest("after must be an event id: a whole number of 0 or more")
		}
		after = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxEventsPage {
			return badRequest("limit must be a whole number from 1 to 1000")
		}
		limit = n
	}
	es, err := s.store.Events(r.Context(), after, limit)
	if err != nil {
		return err
	}
	if es == nil {
		es = []board.Event{}
	}
	return writeJSON(w, http.StatusOK, es)
}

// apiEventStream is the SSE twin of apiEvents: every event after the cursor,
// then each new one as it is committed, as "event: <type>" with the event's
// JSON as data and its id as the SSE id (so a reconnecting client resumes
// with Last-Event-ID).
func (s *Server) apiEventStream(w http.ResponseWriter, r *http.Request) error {
	cursor, err := s.startCursor(r)
	if err != nil {
		return err
	}
	st, err := newStream(w)
	if err != nil {
		return nil
	}
	s.follow(r.Context(), st, cursor, func(it item) error {
		b, err := json.Marshal(it.Event)
		if err != nil {
			return err
		}
		return st.send(it.Event.ID, string(it.Event.Type), string(b))
	})
	return nil
}
