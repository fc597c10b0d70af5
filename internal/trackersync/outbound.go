package trackersync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/tracker"
)

// outbound posts to each open linked issue the agent's questions, status
// and completion comments written since the link and its plan, those not
// posted yet, and mirrors the ticket's state when it changed. With nothing new
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
// then its plan when it is one not posted yet, recording each as it goes.
func (s pass) post(ctx context.Context, p board.Project, tr tracker.Tracker, l board.IssueLink) (int, error) {
	cs, err := s.opts.Board.Comments(ctx, l.Ref)
	if err != nil {
		return 0, err
	}
	t, err := s.opts.Board.Ticket(ctx, l.Ref)
	if err != nil {
		return 0, err
	}
	type item struct{ id, text string }
	var todo []item
	for _, c := range cs {
		if c.AuthorType == board.Agent && said[c.Kind] != "" && !c.CreatedAt.Before(l.Since) {
			todo = append(todo, item{c.ID, s.render(l.Ref, said[c.Kind], c.Kind == board.KindQuestion, c.Content)})
		}
	}
	if plan := strings.TrimSpace(t.Plan); plan != "" {
		sum := sha256.Sum256([]byte(plan))
		todo = append(todo, item{board.PostedPlanPrefix + hex.EncodeToString(sum[:8]), s.render(l.Ref, "plans", false, plan)})
	}
	if len(todo) == 0 {
		return 0, nil
	}
	posted, err := s.opts.Board.PostedComments(ctx, l.Ref)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, it := range todo {
		if posted[it.id] != "" {
			continue
		}
		out, err := tr.Comment(ctx, l.IssueRef, s.opts.Redact(it.text))
		if err != nil {
			return n, err
		}
		if err := s.opts.Board.RecordPostedComment(ctx, l.Ref, it.id, out.ID); err != nil && board.ErrorCode(err) != board.ECONFLICT {
			return n, err
		}
		n++
	}
	return n, nil
}

// render is what the issue shows of the ticket's agent: who says it
// (verb: asks, reports, plans…), the ticket it comes from, and whether a
// person may answer there.
func (s pass) render(ref board.Ref, verb string, question bool, text string) string {
	where := ref.String()
	if s.opts.TicketURL != nil {
		if u := s.opts.TicketURL(ref); u != "" {
			where = fmt.Sprintf("[%s](%s)", ref, u)
		}
	}
	head := fmt.Sprintf("**Bonsai's agent** %s (ticket %s):", verb, where)
	if question {
		head += " a person who may push to the repository can answer here."
	}
	return head + "\n\n" + text
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
