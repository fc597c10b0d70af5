package forgesync

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
)

func itoa(n int) string { return strconv.Itoa(n) }

// Publish opens the pull request of ticket t, which just reached
// VERIFICATION with its branch pushed, or updates the one it has: title
// from the ticket, body from the agent's completion comment with a link
// back to the ticket. The landing record keeps the pull request; a
// failure is written on the ticket (once per distinct failure) and in the
// landing's Error, and returned.
func (f *Forges) Publish(ctx context.Context, p board.Project, t board.Ticket) error {
	ref := t.Ref()
	l, err := f.opts.Board.Landing(ctx, ref)
	if err != nil && board.ErrorCode(err) != board.ENOTFOUND {
		return err
	}
	l.Ref, l.Mode, l.Branch = ref, board.LandPR, t.Branch
	c, err := f.Client(p)
	if err != nil {
		return f.failed(ctx, l, "open a pull request", err)
	}
	l.Forge = string(c.Kind())
	if t.Branch == "" {
		return fmt.Errorf("%s has no branch yet, so it has no pull request", ref)
	}
	title := fmt.Sprintf("%s (%s)", t.Title, ref)
	body, err := f.body(ctx, t)
	if err != nil {
		return err
	}
	var pr forge.PR
	opened := false
	switch {
	case l.PRNumber > 0 && l.PRState == board.PROpen:
		pr, err = c.UpdatePR(ctx, l.PRNumber, title, body)
	default:
		var found bool
		pr, found, err = c.FindPR(ctx, t.Branch)
		if err == nil && found {
			pr, err = c.UpdatePR(ctx, pr.Number, title, body)
		} else if err == nil {
			pr, err = c.OpenPR(ctx, forge.NewPR{Title: title, Body: body, Head: t.Branch, Base: p.DefaultBranch})
			opened = true
		}
	}
	if err != nil {
		return f.failed(ctx, l, "open or update the pull request", err)
	}
	if l.PRNumber != pr.Number {
		l.ReviewCursor, l.ETag, l.Checks = "", "", board.ChecksNone
	}
	l.PRNumber, l.PRURL, l.PRState, l.HeadSHA, l.Error = pr.Number, pr.URL, board.PROpen, pr.HeadSHA, ""
	if _, err := f.opts.Board.SaveLanding(ctx, l); err != nil {
		return err
	}
	f.dropPublish(ref)
	name := prName(l.Forge, pr.Number)
	if opened {
		f.note(ctx, ref, board.KindStatus, fmt.Sprintf("Opened %s on %s: %s\n\nReview it there or here: changes requested on %s return the ticket to the agent; approving here merges it.",
			name, forgeName(l.Forge), pr.URL, forgeName(l.Forge)))
	} else {
		f.note(ctx, ref, board.KindStatus, fmt.Sprintf("Updated %s with this run's work: %s", name, pr.URL))
	}
	return nil
}

// failed records a failure to publish on the landing and, when it is new
// or Bonsai stops trying again, on the ticket, and returns it. The beats
// try again (republish.go).
func (f *Forges) failed(ctx context.Context, l board.Landing, what string, err error) error {
	msg := f.opts.Redact(err.Error())
	next, ok, stopped := f.queuePublish(l.Ref, err)
	if l.Error != msg || stopped {
		f.note(ctx, l.Ref, board.KindStatus, fmt.Sprintf("Could not %s; the branch `%s` is pushed and the ticket waits in VERIFICATION:\n\n%s\n\n%s",
			what, l.Branch, indent(msg), retryWords(next, ok)))
	}
	l.Error = msg
	if _, serr := f.opts.Board.SaveLanding(ctx, l); serr != nil {
		f.log.Error("save landing", "ticket", l.Ref.String(), "err", serr)
	}
	return err
}

// body is the pull request's description: the agent's last completion
// comment, the commits recorded for review, the acceptance criteria, and
// the link back to the ticket.
func (f *Forges) body(ctx context.Context, t board.Ticket) (string, error) {
	cs, err := f.opts.Board.Comments(ctx, t.Ref())
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Kind == board.KindCompletion {
			b.WriteString(strings.TrimSpace(cs[i].Content))
			b.WriteString("\n\n")
			break
		}
	}
	// The commits the runtime recorded for review, read from its own
	// repository: the agent's summary above counts against refs it can
	// move.
	if rv, err := f.opts.Board.Review(ctx, t.Ref()); err != nil {
		return "", err
	} else if rv.Tip != "" {
		fmt.Fprintf(&b, "**Reviewed:** `%s`, compared with the default branch at `%s`. Approving in Bonsai merges this pull request only while its head is that commit.\n\n", rv.Tip, rv.Base)
	}
	if len(t.Criteria) > 0 {
		b.WriteString("**Acceptance criteria**\n\n")
		for _, c := range t.Criteria {
			fmt.Fprintf(&b, "- %s\n", c)
		}
		b.WriteString("\n")
	}
	if closes := f.closes(ctx, t.Ref()); closes != "" {
		b.WriteString(closes + "\n\n")
	}
	link := t.Ref().String()
	if f.opts.TicketURL != nil {
		if u := f.opts.TicketURL(t.Ref()); u != "" {
			link = fmt.Sprintf("[%s](%s)", t.Ref(), u)
		}
	}
	fmt.Fprintf(&b, "---\nBonsai ticket %s. Changes requested here go back to the agent; approving the ticket in Bonsai merges this.", link)
	return f.opts.Redact(b.String()), nil
}

// indent sets a message apart as a code block.
func indent(msg string) string {
	return "    " + strings.ReplaceAll(strings.TrimSpace(msg), "\n", "\n    ")
}

// issueLinker is the board's record of the tracker issue a ticket came
// from (store.Trackers); a Board without it links none.
type issueLinker interface {
	IssueLink(ctx context.Context, ref board.Ref) (board.IssueLink, error)
}

// closes is the line that makes the forge close the ticket's issue when
// the pull request lands ("Closes #12"), for an issue of the repository's
// own forge tracker; "" otherwise.
func (f *Forges) closes(ctx context.Context, ref board.Ref) string {
	il, ok := f.opts.Board.(issueLinker)
	if !ok {
		return ""
	}
	l, err := il.IssueLink(ctx, ref)
	if err != nil || !l.Tracker.Forge() || l.Status != board.IssueOpen {
		return ""
	}
	if _, err := strconv.Atoi(l.IssueRef); err != nil {
		return ""
	}
	return "Closes #" + l.IssueRef
}
