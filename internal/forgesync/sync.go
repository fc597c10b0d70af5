package forgesync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store"
)

// SyncReviews follows every open pull request (of project, or of all
// when "") once (docs/forges.md, "The cycle"): a conditional read of the
// pull request, which costs a 304 when nothing changed, and only when it
// did, its reviews and checks. It makes no model request. A forge that
// asks to wait is not asked again before the time it gave
// (Options.LimitsFile). Pull requests that could not be opened are tried
// again when due (republish.go). Failures are recorded on the landings
// and counted; the error is for the board's own failures.
func (f *Forges) SyncReviews(ctx context.Context, project string) (heartbeat.ReviewSync, error) {
	var rep heartbeat.ReviewSync
	ls, err := f.opts.Board.Landings(ctx, store.LandingFilter{ProjectSlug: project, OpenPRs: true})
	if err != nil {
		return rep, err
	}
	if len(ls) == 0 {
		return rep, f.retryPublishes(ctx, project, nil, &rep)
	}
	projects := map[string]board.Project{}
	waiting := f.loadLimits() // API base URLs that asked to wait, until when
	changed := false
	defer func() {
		if changed {
			f.saveLimits(waiting)
		}
	}()
	for _, l := range ls {
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		rep.Open++
		p, ok := projects[l.Ref.Project]
		if !ok {
			if p, err = f.opts.Board.Project(ctx, l.Ref.Project); err != nil {
				return rep, err
			}
			projects[l.Ref.Project] = p
		}
		c, err := f.Client(p)
		if err != nil {
			f.notFollowed(ctx, l, err, &rep)
			continue
		}
		if until, ok := waiting[c.Repo().API]; ok && until.After(f.opts.Now()) {
			rep.Waiting++
			continue
		}
		err = f.syncOne(ctx, c, l, &rep)
		if err == nil {
			// After the sync, so that a review that came while the forge
			// was down is seen before a merge approved earlier.
			err = f.retryMerge(ctx, c, l.Ref, &rep)
		}
		if err != nil {
			var fe *forge.Error
			if errors.As(err, &fe) && fe.Reason == forge.RateLimited {
				waiting[c.Repo().API], changed = f.opts.Now().Add(max(fe.RetryAfter, time.Second)), true
			}
			if fe == nil {
				return rep, err
			}
			f.notFollowed(ctx, l, err, &rep)
		}
	}
	return rep, f.retryPublishes(ctx, project, waiting, &rep)
}

// notFollowed counts a failure to follow the pull request of l, for the
// banner, and records it (setError).
func (f *Forges) notFollowed(ctx context.Context, l board.Landing, err error, rep *heartbeat.ReviewSync) {
	rep.Errors++
	rep.Failures = append(rep.Failures, heartbeat.ReviewFailure{Ticket: l.Ref.String(), Error: f.opts.Redact(err.Error())})
	f.setError(ctx, l, err)
}

// setError records a failure to follow a pull request on its landing,
// when it is new. The first failure of a streak is also said on the
// ticket, once: until the forge answers again, reviews and checks do
// not reach it.
func (f *Forges) setError(ctx context.Context, l board.Landing, err error) {
	msg := f.opts.Redact(err.Error())
	f.log.Warn("follow pull request", "ticket", l.Ref.String(), "err", msg)
	if l.Error == msg {
		return
	}
	first := l.Error == ""
	l.Error = msg
	if _, err := f.opts.Board.SaveLanding(ctx, l); err != nil {
		f.log.Error("save landing", "ticket", l.Ref.String(), "err", err)
		return
	}
	if first {
		f.note(ctx, l.Ref, board.KindStatus, fmt.Sprintf("Bonsai cannot follow %s on %s (%s): %s\n\nUntil this is fixed, its reviews and checks do not reach the ticket: read them on the forge before approving. Every beat tries again; the ticket says nothing more until it works (`bonsai doctor` checks the token).",
			prName(l.Forge, l.PRNumber), forgeName(l.Forge), l.PRURL, msg))
	}
}

// carriesChecks reports whether the forge's pull request includes its
// checks (GitLab's head pipeline), so that a change of checks changes
// its ETag.
func carriesChecks(k forge.Kind) bool { return k == forge.GitLab }

// syncOne follows one pull request. The landing's ETag holds two
// validators (validators.go): the pull request's and its head's checks'.
func (f *Forges) syncOne(ctx context.Context, c forge.Client, l board.Landing, rep *heartbeat.ReviewSync) error {
	prTag, checksTag := splitTags(l.ETag)
	poll, err := c.Poll(ctx, l.PRNumber, prTag)
	if err != nil {
		return err
	}
	if poll.NotModified {
		rep.Unchanged++
		before := l
		l.Error = "" // the forge answers again
		l.ETag = joinTags(poll.ETag, checksTag)
		if !carriesChecks(c.Kind()) {
			// A check that finishes, or a status posted later, does not
			// change the pull request: read the head's checks too.
			if err := f.idleChecks(ctx, c, &l, checksTag, rep); err != nil {
				return err
			}
		}
		if l == before {
			return nil
		}
		return f.save(ctx, l)
	}
	pr := poll.PR
	before := l
	l.ETag, l.HeadSHA, l.Error = joinTags(poll.ETag, ""), pr.HeadSHA, ""
	if pr.URL != "" {
		l.PRURL = pr.URL
	}
	switch pr.State {
	case forge.Merged:
		return f.merged(ctx, l, pr, rep)
	case forge.Closed:
		return f.closed(ctx, l, rep)
	}
	cs := forge.CheckStatus{State: pr.Checks}
	if !pr.HasChecks || pr.Checks == forge.ChecksFailure {
		cp, err := c.PollChecks(ctx, pr.HeadSHA, "")
		if err != nil {
			return err
		}
		cs = cp.Status
		if !carriesChecks(c.Kind()) {
			l.ETag = joinTags(poll.ETag, cp.ETag)
		}
	}
	// Reviews before anything is said: when they cannot be read, the
	// landing is not saved and the next beat reads all of it again, so
	// nothing may have been said yet (the failing checks, twice).
	reviews, cursor, err := c.Reviews(ctx, l.PRNumber, l.ReviewCursor)
	if err != nil {
		return err
	}
	failing := f.checksChanged(ctx, &l, cs, rep)
	if err := f.reviewed(ctx, l, reviews, failing, rep); err != nil {
		return err
	}
	l.ReviewCursor = cursor
	if l == before {
		return nil
	}
	return f.save(ctx, l)
}

// idleChecks reads the checks of an unchanged pull request's head,
// conditionally, and records what changed.
func (f *Forges) idleChecks(ctx context.Context, c forge.Client, l *board.Landing, tag string, rep *heartbeat.ReviewSync) error {
	prTag, _ := splitTags(l.ETag)
	cp, err := c.PollChecks(ctx, l.HeadSHA, tag)
	if err != nil {
		return err
	}
	l.ETag = joinTags(prTag, cp.ETag)
	if cp.NotModified || board.Checks(cp.Status.State) == l.Checks {
		return nil
	}
	f.checksChanged(ctx, l, cp.Status, rep)
	return nil
}

func (f *Forges) save(ctx context.Context, l board.Landing) error {
	_, err := f.opts.Board.SaveLanding(ctx, l)
	return err
}

// checksChanged records the pull request's checks and, when they start
// failing, says so on the ticket. It returns the failing checks' lines.
func (f *Forges) checksChanged(ctx context.Context, l *board.Landing, cs forge.CheckStatus, rep *heartbeat.ReviewSync) []string {
	old := l.Checks
	l.Checks = board.Checks(cs.State)
	if l.Checks != board.ChecksFailure {
		return nil
	}
	lines := checkLines(cs)
	if old != board.ChecksFailure {
		rep.ChecksFailed++
		f.note(ctx, l.Ref, board.KindStatus, fmt.Sprintf("Checks fail on %s (%s):\n\n%s\n\nThe agent is given them when the ticket returns; approving merges only once the forge allows it.",
			prName(l.Forge, l.PRNumber), l.PRURL, strings.Join(lines, "\n")))
	}
	return lines
}

// checkLines lists failing checks as Markdown items.
func checkLines(cs forge.CheckStatus) []string {
	var out []string
	for _, c := range cs.Failing {
		line := "- " + c.Name + ": " + c.Detail
		if c.URL != "" {
			line += " (" + c.URL + ")"
		}
		out = append(out, line)
	}
	if len(out) == 0 {
		out = append(out, "- (the forge names no check)")
	}
	return out
}

// merged moves the ticket of a pull request merged on the forge to DONE.
func (f *Forges) merged(ctx context.Context, l board.Landing, pr forge.PR, rep *heartbeat.ReviewSync) error {
	f.dropMerge(l.Ref)
	l.PRState, l.Commit, l.LandedAt = board.PRMerged, pr.MergeCommit, f.opts.Now()
	if err := f.save(ctx, l); err != nil {
		return err
	}
	t, err := f.opts.Board.Ticket(ctx, l.Ref)
	if err != nil {
		return err
	}
	name := prName(l.Forge, l.PRNumber)
	switch t.State {
	case board.Done:
		return nil // approved in Bonsai, which merged it
	case board.Verification:
		if _, err := f.opts.Board.MoveTicket(ctx, l.Ref, board.MoveRequest{To: board.Done, Actor: board.Human}, "merged on "+forgeName(l.Forge)); err != nil {
			return err
		}
		rep.Merged++
		f.note(ctx, l.Ref, board.KindStatus, fmt.Sprintf("%s was merged on %s (%s), so the ticket is DONE; its worktree is removed on the next beat.",
			upper(name), forgeName(l.Forge), short(pr.MergeCommit)))
	default:
		f.note(ctx, l.Ref, board.KindStatus, fmt.Sprintf("%s was merged on %s while the ticket is %s; move it to DONE when nothing is left to do.",
			upper(name), forgeName(l.Forge), t.State))
	}
	return nil
}

// closed blocks the ticket of a pull request closed without merging.
func (f *Forges) closed(ctx context.Context, l board.Landing, rep *heartbeat.ReviewSync) error {
	f.dropMerge(l.Ref)
	l.PRState = board.PRClosed
	if err := f.save(ctx, l); err != nil {
		return err
	}
	rep.Closed++
	f.block(ctx, l.Ref, fmt.Sprintf("%s was closed on %s without being merged (%s). What now? Reopen it there and answer here, return the ticket with feedback, or move it to BACKLOG.",
		upper(prName(l.Forge, l.PRNumber)), forgeName(l.Forge), l.PRURL))
	return nil
}

// reviewed gives the ticket the reviews it has not seen: changes
// requested and review comments return it from VERIFICATION with the
// review quoted as feedback (or, when it is being worked on, reach the
// agent as a person's comment); approvals are noted.
func (f *Forges) reviewed(ctx context.Context, l board.Landing, rs []forge.Review, failing []string, rep *heartbeat.ReviewSync) error {
	var feedback []forge.Review
	var outsiders, unknown []string
	for _, r := range rs {
		if r.Unknown {
			unknown = append(unknown, r.Author)
			continue
		}
		if r.Outsider {
			outsiders = append(outsiders, r.Author)
			continue
		}
		if r.Kind == forge.Approved {
			f.note(ctx, l.Ref, board.KindNote, fmt.Sprintf("%s approved %s on %s. Approving the ticket here merges it.", r.Author, prName(l.Forge, l.PRNumber), forgeName(l.Forge)))
			continue
		}
		feedback = append(feedback, r)
	}
	if len(outsiders) > 0 {
		f.note(ctx, l.Ref, board.KindNote, fmt.Sprintf("%d review comment(s) on %s by people without write access to the repository (%s) were not given to the agent; read them on %s (%s) and pass on what matters.",
			len(outsiders), prName(l.Forge, l.PRNumber), strings.Join(unique(outsiders), ", "), forgeName(l.Forge), l.PRURL))
	}
	if len(unknown) > 0 {
		f.note(ctx, l.Ref, board.KindNote, fmt.Sprintf("%d review(s) or comment(s) on %s by %s were not given to the agent: %s would not say whether they may push to the repository (the token is not the repository's admin, and the list of assignees was refused). Read them on %s (%s) and pass on what matters, or give the token read access to the repository's assignees or an admin's rights.",
			len(unknown), prName(l.Forge, l.PRNumber), strings.Join(unique(unknown), ", "), forgeName(l.Forge), forgeName(l.Forge), l.PRURL))
	}
	if len(feedback) == 0 {
		return nil
	}
	text := feedbackText(l, feedback, failing)
	author := reviewers(feedback) + " on " + forgeName(l.Forge)
	t, err := f.opts.Board.Ticket(ctx, l.Ref)
	if err != nil {
		return err
	}
	if t.State == board.Verification {
		if _, err := f.opts.Board.MoveTicket(ctx, l.Ref, board.MoveRequest{To: board.InProgress, Actor: board.Human, Feedback: text}, author); err != nil {
			return err
		}
		rep.Returned++
		return nil
	}
	_, err = f.opts.Board.AddComment(ctx, l.Ref, board.Comment{AuthorType: board.Human, AuthorName: author, Kind: board.KindFeedback, Content: text})
	return err
}

// maxFeedback keeps the feedback within a comment's limit.
const maxFeedback = 60 << 10

// feedbackText quotes the reviews, each attributed to its reviewer, and
// the failing checks.
func feedbackText(l board.Landing, rs []forge.Review, failing []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Review of %s on %s (%s):\n", prName(l.Forge, l.PRNumber), forgeName(l.Forge), l.PRURL)
	for _, r := range rs {
		b.WriteString("\n")
		switch {
		case r.Kind == forge.ChangesRequested:
			fmt.Fprintf(&b, "**%s** requested changes", r.Author)
		case r.Path != "" && r.Line > 0 && r.Old:
			fmt.Fprintf(&b, "**%s** commented on `%s` line %d of the old version (a line the change removed or replaced)", r.Author, r.Path, r.Line)
		case r.Path != "" && r.Line > 0:
			fmt.Fprintf(&b, "**%s** commented on `%s` line %d", r.Author, r.Path, r.Line)
		case r.Path != "":
			fmt.Fprintf(&b, "**%s** commented on `%s`", r.Author, r.Path)
		default:
			fmt.Fprintf(&b, "**%s** commented", r.Author)
		}
		if strings.TrimSpace(r.Body) == "" {
			b.WriteString(" (no text).\n")
			continue
		}
		b.WriteString(":\n\n")
		for _, line := range strings.Split(strings.TrimSpace(r.Body), "\n") {
			b.WriteString("> " + line + "\n")
		}
	}
	if len(failing) > 0 {
		b.WriteString("\nFailing checks:\n\n" + strings.Join(failing, "\n") + "\n")
	}
	s := b.String()
	if len(s) > maxFeedback {
		s = s[:maxFeedback] + "\n…(cut)"
	}
	return s
}

// reviewers names the authors of rs, each once.
func reviewers(rs []forge.Review) string {
	var names []string
	for _, r := range rs {
		names = append(names, r.Author)
	}
	return strings.Join(unique(names), ", ")
}

// unique returns names without repeats, in their order.
func unique(names []string) []string {
	var out []string
	for _, n := range names {
		if !contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	if sha == "" {
		return "commit not named"
	}
	return sha
}
