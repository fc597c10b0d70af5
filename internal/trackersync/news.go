package trackersync

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/tracker"
)

// news reads the comments of a linked issue after its cursor: those of
// people who may steer become human comments on the ticket (which
// unblock it when it waits for an answer), the others are counted and
// named in one note, Bonsai's own are passed over. The link keeps the
// cursor only once all are on the ticket.
func (s pass) news(ctx context.Context, p board.Project, tr tracker.Tracker, l board.IssueLink, is tracker.Issue, rep *heartbeat.TrackerSync) error {
	cs, cursor, err := tr.Comments(ctx, l.IssueRef, l.Cursor)
	if err != nil {
		return issueFailed(p, l, err)
	}
	posted, err := s.opts.Board.PostedComments(ctx, l.Ref)
	if err != nil {
		return err
	}
	ours := map[string]bool{}
	for _, ext := range posted {
		ours[ext] = true
	}
	held := map[string]int{}
	heldCount := 0
	for _, c := range cs {
		if c.Ours || ours[c.ID] {
			continue
		}
		if !c.Writer {
			held[c.Author]++
			heldCount++
			continue
		}
		if err := s.deliver(ctx, p, l, c); err != nil {
			return err
		}
		rep.Delivered++
	}
	if heldCount > 0 {
		rep.Held += heldCount
		s.note(ctx, l.Ref, heldNote(p, l, held, heldCount, cs))
	}
	l.Cursor, l.Seen, l.Status, l.URL = cursor, seen(is), board.IssueOpen, is.URL
	_, err = s.opts.Board.SaveIssueLink(ctx, l)
	return err
}

// deliver gives a writer's comment to the ticket once; an edit of one
// delivered before comes as a new comment saying so.
func (s pass) deliver(ctx context.Context, p board.Project, l board.IssueLink, c tracker.Comment) error {
	name := trackerName(p.Agent.Tracker)
	body := strings.TrimSpace(tracker.Unmark(c.Body))
	ext := c.ID
	text := body
	if c.Edited {
		ext = c.ID + "@" + c.Updated.UTC().Format("20060102T150405.000")
		text = fmt.Sprintf("%s edited their comment on %s after it was delivered; it now reads:\n\n%s", c.Author, name, body)
	}
	if len(text) > board.MaxComment-200 {
		text = cut(text, board.MaxComment-200)
	}
	if text == "" {
		text = "(an empty comment)"
	}
	_, err := s.opts.Board.DeliverIssueComment(ctx, l.Ref, board.Comment{AuthorType: board.Human, AuthorName: c.Author + " (" + name + ")",
		Kind: board.KindNote, Content: text}, ext)
	if board.ErrorCode(err) == board.ECONFLICT {
		return nil // delivered by an earlier beat whose cursor was not saved
	}
	return err
}

// heldNote names the people whose comments were not given to the agent.
func heldNote(p board.Project, l board.IssueLink, held map[string]int, n int, cs []tracker.Comment) string {
	names := make([]string, 0, len(held))
	for a := range held {
		names = append(names, a)
	}
	sort.Strings(names)
	unknown := false
	for _, c := range cs {
		unknown = unknown || c.Unknown
	}
	word := "comments"
	if n == 1 {
		word = "comment"
	}
	msg := fmt.Sprintf("%d %s on the issue by %s, who may not steer the agent, were not passed on to it: %s",
		n, word, strings.Join(names, ", "), l.URL)
	if unknown {
		msg += fmt.Sprintf("\n\n%s would not say whether some of them may push to the repository, so they were kept from the agent too; give the token %s.",
			trackerName(p.Agent.Tracker), tracker.Scopes(tracker.Kind(p.Agent.Tracker)))
	}
	return msg + "\n\nA person who may steer can repeat what should reach the agent, there or here."
}

// left reads a linked issue that left the list: closed by hand stops its
// ticket; deleted, hidden, moved or no longer matching keeps the ticket
// with a note, once.
func (s pass) left(ctx context.Context, p board.Project, tr tracker.Tracker, l board.IssueLink, rep *heartbeat.TrackerSync) error {
	is, err := tr.Issue(ctx, l.IssueRef)
	switch tracker.ReasonOf(err) {
	case "":
	case tracker.Gone, tracker.NotFound:
		l.Status = board.IssueGone
		if s.stop(ctx, p, l, fmt.Sprintf("The issue %s was deleted on %s, or the token can no longer see it", l.URL, trackerName(p.Agent.Tracker))) {
			rep.Closed++
		}
		_, err = s.opts.Board.SaveIssueLink(ctx, l)
		return err
	default:
		return issueFailed(p, l, err)
	}
	switch {
	case is.Moved != "":
		l.Status = board.IssueMoved
		s.note(ctx, l.Ref, fmt.Sprintf("The issue %s was moved to %s, outside this project's tracker; the ticket is no longer synced with it.", l.URL, is.Moved))
	case is.State == tracker.Closed:
		l.Status = board.IssueClosed
		if s.stop(ctx, p, l, fmt.Sprintf("The issue %s was closed on %s by hand", l.URL, trackerName(p.Agent.Tracker))) {
			rep.Closed++
		}
	default:
		l.Status = board.IssueUnmatched
		s.note(ctx, l.Ref, fmt.Sprintf("The issue %s no longer matches the project's tracker query; the ticket is kept and no longer synced with it.", l.URL))
	}
	_, err = s.opts.Board.SaveIssueLink(ctx, l)
	return err
}

// stop stops the ticket of an issue closed or deleted by hand (what
// says which): its running run is asked to stop, and a ticket not yet in
// VERIFICATION or DONE goes back to BACKLOG, where agents leave it; the
// ticket keeps what was read. It reports whether it stopped one.
func (s pass) stop(ctx context.Context, p board.Project, l board.IssueLink, what string) bool {
	t, err := s.opts.Board.Ticket(ctx, l.Ref)
	if err != nil || t.State == board.Done {
		return false // a landed pull request closed it: nothing to stop
	}
	who := "the " + trackerName(p.Agent.Tracker) + " issue"
	if _, err := s.opts.Board.RequestStop(ctx, l.Ref, who); err != nil && board.ErrorCode(err) != board.ECONFLICT {
		s.log.Warn("stop the run of a closed issue's ticket", "ticket", l.Ref.String(), "err", err)
	}
	moved := ""
	if t.State == board.Research || t.State == board.InProgress {
		if _, err := s.opts.Board.MoveTicket(ctx, l.Ref, board.MoveRequest{To: board.Backlog, Actor: board.Human}, who); err == nil {
			moved = " and the ticket moved back to BACKLOG, where agents leave it"
		}
	}
	s.note(ctx, l.Ref, fmt.Sprintf("%s: its run was stopped%s, and it is no longer synced. Move the ticket on here to work on it again.",
		what, moved))
	return true
}

// issueFailed names the issue and ticket in a failure to read or write
// one issue; the sync records it like a failed list (failed).
func issueFailed(p board.Project, l board.IssueLink, err error) error {
	return fmt.Errorf("%s issue %s (%s): %w", trackerName(p.Agent.Tracker), l.IssueRef, l.Ref, err)
}
