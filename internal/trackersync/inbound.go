package trackersync

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/tracker"
)

// syncProject syncs one project's tracker. The validator is kept only
// when every issue that changed was read: else the next beat lists again
// and reads what this one missed.
func (s *Syncer) syncProject(ctx context.Context, p board.Project, rep *heartbeat.TrackerSync) {
	st, err := s.opts.Board.TrackerSync(ctx, p.Slug)
	if err != nil {
		rep.Failures = append(rep.Failures, heartbeat.TrackerFailure{Project: p.Slug, Error: err.Error()})
		return
	}
	lim, waiting := s.limited(ctx, p)
	if waiting {
		return
	}
	tr, q, err := s.Open(p)
	if err != nil {
		s.failed(ctx, p, st, err, rep)
		return
	}
	qk := queryKey(p)
	validator := st.Validator
	if st.Query != qk {
		validator = ""
	}
	l, err := tr.List(ctx, q, validator)
	if err != nil {
		s.failed(ctx, p, st, err, rep)
		return
	}
	// A new token's login, once: the next beats' clients know it.
	lim = s.identify(ctx, p, lim)
	var inErr error
	if l.NotModified {
		rep.Unchanged++
	} else {
		inErr = pass{s}.inbound(ctx, p, tr, l.Issues, rep)
	}
	_, outErr := pass{s}.outbound(ctx, p, tr, rep)
	st.Tracker, st.Query = p.Agent.Tracker, qk
	if inErr != nil || outErr != nil {
		// The old validator lists again next beat, and what this one
		// missed (a link's Seen, a comment not posted) is tried again.
		st.Validator = validator
		if inErr == nil {
			st.Validator = l.Validator
			inErr = outErr
		}
		s.failed(ctx, p, st, inErr, rep)
		return
	}
	st.Validator, st.Error, st.Failures = l.Validator, "", 0
	if _, err := s.opts.Board.SaveTrackerSync(ctx, st); err != nil {
		s.log.Error("save the tracker sync", "project", p.Slug, "err", err)
	}
	s.unlimit(ctx, lim)
}

// failed records a failed sync: in the sync state and the beat's report
// every time, and on the project's open linked tickets at the first
// failure of a streak.
func (s *Syncer) failed(ctx context.Context, p board.Project, st board.TrackerSync, err error, rep *heartbeat.TrackerSync) {
	msg := s.opts.Redact(err.Error()) + s.limit(ctx, p, err)
	rep.Failures = append(rep.Failures, heartbeat.TrackerFailure{Project: p.Slug, Error: msg})
	first := st.Failures == 0
	st.Error, st.Failures = msg, st.Failures+1
	if _, serr := s.opts.Board.SaveTrackerSync(ctx, st); serr != nil {
		s.log.Error("save the tracker sync", "project", p.Slug, "err", serr)
	}
	if !first {
		return
	}
	links, lerr := s.opts.Board.IssueLinks(ctx, p.Slug)
	if lerr != nil {
		return
	}
	for _, l := range links {
		if l.Status == board.IssueOpen {
			s.note(ctx, l.Ref, fmt.Sprintf("Could not sync this ticket's issue with %s; comments there wait until it can (every beat tries again, and this note is not repeated until it works again):\n\n%s",
				trackerName(p.Agent.Tracker), indent(msg)))
		}
	}
}

// inbound applies a changed list: new issues become tickets, linked ones
// that changed have their comments read, linked ones that left the list
// are read one by one. It returns the first failure after trying all.
func (s pass) inbound(ctx context.Context, p board.Project, tr tracker.Tracker, issues []tracker.Issue, rep *heartbeat.TrackerSync) error {
	links, err := s.opts.Board.IssueLinks(ctx, p.Slug)
	if err != nil {
		return err
	}
	byID := map[string]board.IssueLink{}
	for _, l := range links {
		byID[l.IssueID] = l
	}
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	listed := map[string]bool{}
	for _, is := range issues {
		listed[is.ID] = true
		l, ok := byID[is.ID]
		switch {
		case !ok:
			keep(s.create(ctx, p, tr, is, rep))
		case l.Seen != seen(is) || l.Status != board.IssueOpen:
			keep(s.news(ctx, p, tr, l, is, rep))
		}
	}
	for _, l := range links {
		if !listed[l.IssueID] && l.Status == board.IssueOpen {
			keep(s.left(ctx, p, tr, l, rep))
		}
	}
	return first
}

// seen is what an issue was when read: any comment or edit changes it.
func seen(is tracker.Issue) string {
	return fmt.Sprintf("%s/%d", is.Updated.UTC().Format("2006-01-02T15:04:05.000Z"), is.Comments)
}

// create makes the ticket of a new issue, and reads its comments. An
// issue opened by someone who may not steer becomes a BACKLOG ticket: its
// body reaches the agent only once a person moves it on.
func (s pass) create(ctx context.Context, p board.Project, tr tracker.Tracker, is tracker.Issue, rep *heartbeat.TrackerSync) error {
	state, why := board.Research, ""
	if is.Author != "" && p.Agent.Tracker.Forge() {
		acc, err := tr.Writers(ctx, []string{is.Author})
		if err != nil {
			return err
		}
		if acc[is.Author] != tracker.AccessWrite {
			state = board.Backlog
			why = fmt.Sprintf("The issue was opened by %s, who may not steer the agent, so the ticket waits in BACKLOG: move it to RESEARCH to let an agent work on it.", is.Author)
		}
	}
	t, l, err := s.opts.Board.CreateLinkedTicket(ctx, ticketOf(p, is, state), board.IssueLink{Tracker: p.Agent.Tracker, IssueID: is.ID,
		IssueRef: is.Ref, URL: is.URL, Status: board.IssueOpen})
	if board.ErrorCode(err) == board.ECONFLICT {
		return nil // linked by another beat since the list was read
	}
	if err != nil {
		return err
	}
	rep.Created++
	if why != "" {
		s.note(ctx, t.Ref(), why)
	}
	return s.news(ctx, p, tr, l, is, rep)
}

// ticketOf is the ticket an issue becomes: its title, its body with a
// link back, its checklist as acceptance criteria.
func ticketOf(p board.Project, is tracker.Issue, state board.State) board.Ticket {
	title := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.TrimSpace(is.Title))
	if r := []rune(title); len(r) > board.MaxTitle {
		title = string(r[:board.MaxTitle-1]) + "…"
	}
	if title == "" {
		title = "Issue " + is.Ref
	}
	body := cut(tracker.Unmark(strings.TrimSpace(is.Body)), board.MaxDescription-2000)
	desc := strings.TrimSpace(body + fmt.Sprintf("\n\n---\nFrom %s issue %s: %s", trackerName(p.Agent.Tracker), is.Ref, is.URL))
	var criteria []string
	for _, c := range tracker.Checklist(is.Body) {
		if len(criteria) == board.MaxCriteria {
			break
		}
		criteria = append(criteria, cut(c.Text, board.MaxCriterion))
	}
	return board.Ticket{ProjectSlug: p.Slug, Title: title, Description: desc, Criteria: criteria, State: state, Priority: board.DefaultPriority}
}
