package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// ticketForms holds what a person typed into the ticket page's forms and
// the error of the form that failed, so a refused submission shows the
// reason next to the field and loses nothing.
type ticketForms struct {
	Reply, ReplyErr       string
	Feedback, FeedbackErr string
	Note, ApproveErr      string
	MoveErr               string
	// The approval form that failed: which approval, the note typed.
	ApprovalID, ApprovalNote, ApprovalErr string
	Edit                                  editFormValues
	EditErr                               string
	EditOpen                              bool
	// RunErr is why Stop or Run now failed.
	RunErr string
	// ReopenNote and ReopenErr are the failed "Reopen as follow-up".
	ReopenNote, ReopenErr string
	// LinkOther and LinkErr are the failed link form.
	LinkOther, LinkErr string
}

type editFormValues struct {
	Title, Description, Criteria string
	Priority                     int
	UpdatedAt                    int64 // unix ms of the version edited
}

type ticketPageView struct {
	view.TicketDetail
	Project  board.Project
	Running  bool
	CostUSD  float64
	Cursor   int64
	Forms    ticketForms
	Moves    []board.State // the states a person may move the ticket to
	Question *board.Comment
	// Pending are the commands waiting for a person's approval.
	Pending []board.Approval
	// Activity is the transcript of the running run so far, and
	// ActivityOffset the transcript's size when read: the page's stream
	// continues from there.
	Activity       []entryView
	ActivityOffset int64
	Diffs          bool // the server can show the branch's diff
	// RunNow shows the Run now button: the server can start a beat, and
	// the board's rules may let an agent work on the ticket.
	RunNow bool
	// Landed is a DONE ticket whose work landed: it stays DONE, and the
	// page offers to reopen it as a follow-up.
	Landed bool
	// Variants are the ticket's best of N (variants.go); VariantsForm
	// shows the "Run N ways" form.
	Variants     []board.Variant
	VariantsForm bool
}

func (s *Server) loadTicketPage(r *http.Request, ref board.Ref) (ticketPageView, error) {
	ctx := r.Context()
	// Read the event log to its end first (one indexed query), so that the
	// run badges and the live activity include a run another process just
	// started.
	if err := s.feed.poll(ctx); err != nil {
		return ticketPageView{}, err
	}
	cursor := s.feed.cursor()
	p, err := s.store.Project(ctx, ref.Project)
	if err != nil {
		return ticketPageView{}, err
	}
	d, err := s.loadTicketDetail(ctx, ref)
	if err != nil {
		return ticketPageView{}, err
	}
	v := ticketPageView{TicketDetail: d, Project: p, Cursor: cursor, Diffs: s.opts.Diff != nil}
	v.Running, v.CostUSD = s.runs.ticket(d.ID)
	v.RunNow = s.opts.RunNow != nil && !v.Running && d.SubState != board.SubBlocked &&
		(d.State == board.Research || d.State == board.InProgress || d.State == board.Backlog && p.Agent.TakeBacklog)
	if v.Variants, v.VariantsForm, err = s.ticketVariants(ctx, d.Ticket.Ticket, v.RunNow); err != nil {
		return ticketPageView{}, err
	}
	if started, ok := s.runs.runningSince(d.ID); ok {
		v.Activity, v.ActivityOffset, err = readTranscript(s.transcriptFile(ctx, d.ProjectID, d.ID), started.Add(-time.Second), time.Time{})
		if err != nil {
			return ticketPageView{}, err
		}
	}
	var landing board.Landing
	if d.Landing != nil {
		landing = *d.Landing
	}
	for _, st := range board.States {
		req := board.MoveRequest{To: st, Actor: board.Human, Feedback: "x"}
		if board.CheckMove(d.Ticket.Ticket, req) == nil && board.CheckLeaveDone(d.Ticket.Ticket, landing, req) == nil &&
			!(d.State == board.Verification && st == board.InProgress) { // request changes has its own form
			v.Moves = append(v.Moves, st)
		}
	}
	v.Landed = d.State == board.Done && landing.Landed()
	for _, a := range d.Approvals {
		if a.Status == board.ApprovalPending {
			v.Pending = append(v.Pending, a)
		}
	}
	if d.SubState == board.SubBlocked && len(v.Pending) == 0 {
		for i := len(d.Comments) - 1; i >= 0; i-- {
			if c := d.Comments[i]; c.Kind == board.KindQuestion {
				v.Question = &d.Comments[i]
				break
			}
		}
	}
	if view.AgentsWorkOn(d.Ticket.Ticket) {
		var facts view.AgentFacts
		if s.opts.Facts != nil {
			facts = s.opts.Facts()
		}
		v.NotRun = d.WithWaiting(view.NotRun(d.Ref, facts, s.blockers(ctx)))
	}
	v.Forms.Edit = editFormValues{Title: d.Title, Description: d.Description,
		Criteria: strings.Join(d.Criteria, "\n"), Priority: d.Priority, UpdatedAt: d.UpdatedAt.UnixMilli()}
	return v, nil
}

func (s *Server) ticketPage(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	v, err := s.loadTicketPage(r, ref)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "ticket", pageData{Title: ref.String() + " " + v.Title, Project: ref.Project, Data: v})
	return nil
}

// ticketLive is the part of the ticket page that changes while people and
// agents work: state, description, criteria, plan, thread and runs. The page
// fetches it again on every event of the ticket; the forms are outside it,
// so a refresh never eats what someone is typing.
func (s *Server) ticketLive(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	v, err := s.loadTicketPage(r, ref)
	if err != nil {
		return err
	}
	s.fragment(w, r, http.StatusOK, "ticket-live", v)
	return nil
}

// ticketEvents streams a "ticket" event (data: the event id) whenever the
// ticket changes.
func (s *Server) ticketEvents(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	t, err := s.store.Ticket(r.Context(), ref)
	if err != nil {
		return err
	}
	cursor, err := s.startCursor(r)
	if err != nil {
		return err
	}
	st, err := newStream(w)
	if err != nil {
		return nil
	}
	s.follow(r.Context(), st, cursor, func(it item) error {
		if it.Event.TicketID != t.ID {
			return nil
		}
		return st.send(it.Event.ID, "ticket", strconv.FormatInt(it.Event.ID, 10))
	})
	return nil
}

// formResult finishes a ticket form: on success it goes back to the ticket
// page (to the anchor given); on a refusal it renders the page again with
// the error set by setErr and the status of the error.
func (s *Server) formResult(w http.ResponseWriter, r *http.Request, ref board.Ref, err error, anchor string, setErr func(*ticketPageView, string)) error {
	if err == nil {
		http.Redirect(w, r, "/p/"+ref.Project+"/"+strconv.Itoa(ref.Number)+anchor, http.StatusSeeOther)
		return nil
	}
	status, _, msg := classify(err)
	if status >= 500 || status == http.StatusNotFound {
		return err
	}
	v, lerr := s.loadTicketPage(r, ref)
	if lerr != nil {
		return lerr
	}
	setErr(&v, msg)
	s.render(w, r, status, "ticket", pageData{Title: ref.String() + " " + v.Title, Project: ref.Project, Data: v})
	return nil
}

func (s *Server) commentForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	content := r.PostFormValue("content")
	c, err := s.commentWithFiles(r, ref, content)
	return s.formResult(w, r, ref, err, "#c-"+c.ID, func(v *ticketPageView, msg string) {
		v.Forms.Reply, v.Forms.ReplyErr = content, msg
	})
}

func (s *Server) moveForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	_, err = s.move(r.Context(), ref, r.PostFormValue("state"))
	return s.formResult(w, r, ref, err, "", func(v *ticketPageView, msg string) { v.Forms.MoveErr = msg })
}

func (s *Server) approveForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	note := r.PostFormValue("comment")
	_, err = s.approve(r.Context(), ref, note)
	return s.formResult(w, r, ref, err, "", func(v *ticketPageView, msg string) {
		v.Forms.Note, v.Forms.ApproveErr = note, msg
	})
}

func (s *Server) returnForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	feedback := r.PostFormValue("feedback")
	_, err = s.returnWithFiles(r, ref, feedback)
	return s.formResult(w, r, ref, err, "", func(v *ticketPageView, msg string) {
		v.Forms.Feedback, v.Forms.FeedbackErr = feedback, msg
	})
}

// editForm saves the edit form. It carries the updatedAt of the version the
// person edited: when the ticket changed since, the edit is refused and the
// form comes back with their text in it and the new version around it.
func (s *Server) editForm(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	vals := editFormValues{Title: r.PostFormValue("title"), Description: r.PostFormValue("description"),
		Criteria: r.PostFormValue("criteria")}
	e := ticketEdit{Title: &vals.Title, Description: &vals.Description}
	cs := strings.Split(strings.ReplaceAll(vals.Criteria, "\r\n", "\n"), "\n")
	e.Criteria = &cs
	var perr error
	if vals.Priority, perr = strconv.Atoi(r.PostFormValue("priority")); perr == nil {
		e.Priority = &vals.Priority
	}
	if ms, err := strconv.ParseInt(r.PostFormValue("updated_at"), 10, 64); err == nil {
		vals.UpdatedAt = ms
		t := time.UnixMilli(ms).UTC()
		e.UpdatedAt = &t
	}
	if perr != nil {
		err = badRequest("priority must be 0 (urgent) to 4 (none)")
	} else {
		_, err = s.editTicket(r.Context(), ref, e)
		if board.ErrorCode(err) == board.EINVALID && strings.HasPrefix(err.Error(), "nothing to change") {
			err = nil
		}
	}
	return s.formResult(w, r, ref, err, "", func(v *ticketPageView, msg string) {
		// The person has now seen the current version around their text: a
		// second save applies it on top of that version.
		vals.UpdatedAt = v.UpdatedAt.UnixMilli()
		v.Forms.Edit, v.Forms.EditErr, v.Forms.EditOpen = vals, msg, true
	})
}
