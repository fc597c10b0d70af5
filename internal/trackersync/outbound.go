package trackersync

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/tracker"
)

// outbound posts to each open linked issue the agent's questions, status
// and completion comments written since the link that were not posted
// yet, and mirrors the ticket's state when it changed. With nothing new
// it reads the board only. It reports how many it posted and returns the
// first failure after trying every issue.
func (s pass) outbound(ctx context.Context, p board.Project, tr tracker.Tracker, rep *heartbeat.TrackerSync) (int, error) {
	links, err := s.opts.Board.IssueLinks(ctx, p.Slug)
	if err != nil {
		return 0, err
	}
	var first error
	n := 0
	for _, l := range links {
		if l.Status != board.IssueOpen {
			continue
		}
		posted, err := s.post(ctx, p, tr, l)
		n += posted
		if err == nil {
			err = s.mirror(ctx, p, tr, l)
		}
		if err != nil && first == nil {
			first = issueFailed(p, l, err)
		}
	}
	rep.Posted += n
	return n, first
}

// said are the comment kinds posted to the issue: what the agent asks,
// reports and says it finished.
var said = map[board.CommentKind]string{board.KindQuestion: "asks", board.KindStatus: "reports", board.KindCompletion: "says the work is done"}

// post posts the ticket's agent comments not posted yet, oldest first,
// recording each as it goes.
func (s pass) post(ctx context.Context, p board.Project, tr tracker.Tracker, l board.IssueLink) (int, error) {
	cs, err := s.opts.Board.Comments(ctx, l.Ref)
	if err != nil {
		return 0, err
	}
	var todo []board.Comment
	for _, c := range cs {
		if c.AuthorType == board.Agent && said[c.Kind] != "" && !c.CreatedAt.Before(l.Since) {
			todo = append(todo, c)
		}
	}
	if len(todo) == 0 {
		return 0, nil
	}
	posted, err := s.opts.Board.PostedComments(ctx, l.Ref)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range todo {
		if posted[c.ID] != "" {
			continue
		}
		out, err := tr.Comment(ctx, l.IssueRef, s.opts.Redact(s.render(l.Ref, c)))
		if err != nil {
			return n, err
		}
		if err := s.opts.Board.RecordPostedComment(ctx, l.Ref, c.ID, out.ID); err != nil && board.ErrorCode(err) != board.ECONFLICT {
			return n, err
		}
		n++
	}
	return n, nil
}

// render is a ticket comment as the issue shows it: who says it, and the
// ticket it comes from.
func (s pass) render(ref board.Ref, c board.Comment) string {
	where := ref.String()
	if s.opts.TicketURL != nil {
		if u := s.opts.TicketURL(ref); u != "" {
			where = fmt.Sprintf("[%s](%s)", ref, u)
		}
	}
	head := fmt.Sprintf("**Bonsai's agent** %s (ticket %s):", said[c.Kind], where)
	if c.Kind == board.KindQuestion {
		head += " a person who may push to the repository can answer here."
	}
	return head + "\n\n" + c.Content
}

// mirror shows the ticket's state on the issue when it changed since it
// was last shown: one read of the issue and its change.
func (s pass) mirror(ctx context.Context, p board.Project, tr tracker.Tracker, l board.IssueLink) error {
	t, err := s.opts.Board.Ticket(ctx, l.Ref)
	if err != nil || t.State == l.Mirrored {
		return err
	}
	is, err := tr.Issue(ctx, l.IssueRef)
	if err != nil {
		return err
	}
	if err := tr.Mirror(ctx, is, string(t.State)); err != nil {
		return err
	}
	l.Mirrored = t.State
	_, err = s.opts.Board.SaveIssueLink(ctx, l)
	return err
}
