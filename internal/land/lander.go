package land

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// Store is what the Lander reads and writes of the board.
type Store interface {
	Project(ctx context.Context, slug string) (board.Project, error)
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	MoveTicket(ctx context.Context, ref board.Ref, req board.MoveRequest, authorName string) (board.Ticket, error)
	AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error)
	Landing(ctx context.Context, ref board.Ref) (board.Landing, error)
	SaveLanding(ctx context.Context, l board.Landing) (board.Landing, error)
	Review(ctx context.Context, ref board.Ref) (board.Review, error)
	SetReview(ctx context.Context, r board.Review) (board.Review, error)
}

// Git puts a ticket branch on the project's default branch and pushes it:
// workspace.Provider's Land.
type Git interface {
	Land(ctx context.Context, p board.Project, req workspace.LandRequest) (workspace.Landed, error)
	// Review reads a ticket branch and the default branch into the
	// runtime's own repository and returns the commits to review.
	Review(ctx context.Context, p board.Project, number int, branch string) (workspace.Review, error)
}

// Options configures a Lander.
type Options struct {
	Store Store
	// Git lands the merge mode; nil makes every merge a failure saying so.
	Git Git
	// PullRequests merges the pr mode's pull requests; nil means no forge
	// support: auto never resolves to pr, and pr fails saying so.
	PullRequests PullRequests
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Lander lands approved tickets.
type Lander struct{ opts Options }

// New returns a Lander.
func New(opts Options) *Lander {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Lander{opts: opts}
}

// System is the author name of the comments and moves the Lander makes.
const System = "bonsai"

// Approval is a person approving a ticket's work.
type Approval struct {
	Ref board.Ref
	// Author is the name the board records on the approval, the move and
	// the comments; empty means Person.Name.
	Author string
	// Person is the identity of the commits landing makes: the approving
	// person's (config git.personName and git.personEmail, or their git
	// config).
	Person Person
	// Note is what they said with it; empty for nothing.
	Note string
	// compared, when set, is the ticket a variant was run for: the
	// variant's work lands under its title and reference.
	compared *board.Ticket
}

func (a Approval) by() string {
	if a.Author != "" {
		return a.Author
	}
	return a.Person.Name
}

// Outcome is how a landing ended.
type Outcome string

// The outcomes.
const (
	// Landed: the work is on the default branch (or, in none mode, the
	// ticket was approved as it is) and the ticket is DONE.
	Landed Outcome = "landed"
	// Returned: the ticket branch conflicts with the default branch; the
	// ticket went back to the agent (IN_PROGRESS) to resolve it.
	Returned Outcome = "returned"
	// Failed: the work did not land for a reason a person must fix; the
	// ticket stays where it was and the error is a *Failure.
	Failed Outcome = "failed"
)

// Result is what Approve and Land did.
type Result struct {
	Outcome Outcome
	Ticket  board.Ticket
	Landing board.Landing
	// Message says what happened in a sentence, for the person.
	Message string
}

// Approve accepts a ticket in VERIFICATION and lands its work as its
// project's landing mode says (Resolve). The ticket becomes DONE only once
// the work landed; a conflict returns it to the agent; any other failure
// leaves it in VERIFICATION with a comment naming the cause and the fix,
// records the error on its landing, and is returned as a *Failure.
func (l *Lander) Approve(ctx context.Context, a Approval) (Result, error) {
	return l.land(ctx, a, false)
}

// Land is Approve, also for a DONE ticket whose work has not landed (one
// approved before its project landed work, or in none mode): it lands the
// work without moving the ticket. It is `bonsai ticket land`, the retry
// after a failure.
func (l *Lander) Land(ctx context.Context, a Approval) (Result, error) {
	return l.land(ctx, a, true)
}

func (l *Lander) land(ctx context.Context, a Approval, again bool) (Result, error) {
	if vs, ok, err := l.variantsOf(ctx, a.Ref); err != nil || ok {
		if err != nil {
			return Result{}, err
		}
		return l.landVariant(ctx, a, again, vs)
	}
	return l.landTicket(ctx, a, again)
}

// landTicket lands ticket a.Ref's work (land).
func (l *Lander) landTicket(ctx context.Context, a Approval, again bool) (Result, error) {
	var note *board.Comment
	if a.Note != "" {
		note = &board.Comment{AuthorType: board.Human, AuthorName: a.by(), Kind: board.KindApproval, Content: a.Note}
		if err := note.Validate(); err != nil {
			return Result{}, err
		}
	}
	s := l.opts.Store
	t, err := s.Ticket(ctx, a.Ref)
	if err != nil {
		return Result{}, err
	}
	done := t.State == board.Done
	if !done || !again {
		if err := board.CheckMove(t, board.MoveRequest{To: board.Done, Actor: board.Human}); err != nil {
			return Result{}, err
		}
	}
	p, err := s.Project(ctx, a.Ref.Project)
	if err != nil {
		return Result{}, err
	}
	rec, err := s.Landing(ctx, a.Ref)
	if board.ErrorCode(err) == board.ENOTFOUND {
		rec, err = board.Landing{Ref: a.Ref}, nil
	}
	if err != nil {
		return Result{}, err
	}
	if done && rec.Commit != "" {
		return Result{Outcome: Landed, Ticket: t, Landing: rec,
			Message: fmt.Sprintf("%s already landed as %s", t.Ref(), short(rec.Commit))}, nil
	}
	rec.Mode, rec.Branch = Resolve(p, l.opts.PullRequests), t.Branch
	if done && rec.Mode == board.LandNone {
		rec.Mode = board.LandMerge // landing a DONE ticket again means merging it
		if !board.IsLocalRepo(p.Repo) && l.opts.PullRequests != nil && l.opts.PullRequests.Available(p) {
			rec.Mode = board.LandPR
		}
	}
	if t.Branch != "" && rec.Mode == board.LandMerge && !a.Person.complete() {
		return Result{}, noIdentity(p, t, a.Person)
	}
	var commit, how string
	var rv board.Review
	if t.Branch != "" && rec.Mode != board.LandNone {
		rv, err = l.reviewed(ctx, p, t)
	}
	switch {
	case err != nil:
	case t.Branch == "":
		how = "it has no branch, so there was nothing to land"
	case rec.Mode == board.LandNone:
		how = noneText(p, t)
	case rec.Mode == board.LandPR:
		commit, err = l.mergePR(ctx, p, t, rec, rv, a)
		how = "its pull request was merged"
	default:
		var ld workspace.Landed
		ld, err = l.merge(ctx, p, t, rv, a)
		commit = ld.Commit
		how = mergeText(p, ld)
	}
	var moved *workspace.MovedError
	if errors.As(err, &moved) {
		err = l.reviewAgain(ctx, p, t, moved)
	}
	var conflict *workspace.ConflictError
	switch {
	case errors.As(err, &conflict):
		return l.returnConflict(ctx, p, t, rec, a, conflict)
	case err != nil:
		return l.failed(ctx, p, t, rec, a, err)
	}
	rec.Error = ""
	if commit != "" {
		rec.Commit, rec.LandedAt = commit, l.opts.Now()
	}
	if rec.Mode == board.LandPR && rec.PRState == board.PROpen {
		// Merged through the forge: record it now, so the next beat need
		// not read the pull request to learn it.
		rec.PRState = board.PRMerged
	}
	if rec, err = s.SaveLanding(ctx, rec); err != nil {
		return Result{}, err
	}
	if !done {
		if t, err = s.MoveTicket(ctx, a.Ref, board.MoveRequest{To: board.Done, Actor: board.Human}, a.by()); err != nil {
			return Result{}, err
		}
	}
	msg := fmt.Sprintf("Approved %s by %s: %s.", t.Ref(), a.by(), how)
	if done {
		msg = fmt.Sprintf("Landed %s: %s.", t.Ref(), how)
	}
	if _, err := s.AddComment(ctx, a.Ref, board.Comment{AuthorType: board.System, AuthorName: System, Kind: board.KindStatus, Content: msg}); err != nil {
		return Result{}, err
	}
	if note != nil {
		if _, err := s.AddComment(ctx, a.Ref, *note); err != nil {
			return Result{}, err
		}
	}
	return Result{Outcome: Landed, Ticket: t, Landing: rec, Message: msg}, nil
}

// merge lands the merge mode through Git: exactly the reviewed commit.
func (l *Lander) merge(ctx context.Context, p board.Project, t board.Ticket, rv board.Review, a Approval) (workspace.Landed, error) {
	if l.opts.Git == nil {
		return workspace.Landed{}, noGit(t)
	}
	return l.opts.Git.Land(ctx, p, workspace.LandRequest{Number: t.Number, Branch: t.Branch, Tip: rv.Tip, Style: p.Agent.LandStyle,
		Message: l.message(ctx, a, p, t, rv).String(), Person: workspace.Identity(a.Person)})
}

// message is the commit message ticket t lands with; a variant lands as
// the ticket it was run for, naming itself in a "Variant:" trailer.
func (l *Lander) message(ctx context.Context, a Approval, p board.Project, t board.Ticket, rv board.Review) Message {
	if a.compared == nil {
		return CommitMessage(t, a.Person, l.coAuthors(ctx, p, rv)...)
	}
	m := CommitMessage(*a.compared, a.Person, l.coAuthors(ctx, p, rv)...)
	m.Body += "\nVariant: " + t.Ref().String()
	return m
}

// mergePR lands the pr mode through PullRequests.
func (l *Lander) mergePR(ctx context.Context, p board.Project, t board.Ticket, rec board.Landing, rv board.Review, a Approval) (string, error) {
	if l.opts.PullRequests == nil {
		return "", &Failure{Cause: "the project lands through pull requests, which this build of Bonsai cannot merge",
			Fix: fmt.Sprintf("merge the pull request on the forge, or land by merging: `bonsai project edit %s --land merge`, then `bonsai ticket land %s`", p.Slug, t.Ref())}
	}
	m, err := l.opts.PullRequests.Merge(ctx, MergeRequest{Project: p, Ticket: t, Landing: rec, Reviewed: rv.Tip,
		Message: l.message(ctx, a, p, t, rv), Approver: a.Person})
	return m.Commit, err
}

// returnConflict sends a ticket whose branch conflicts with the default
// branch back to the agent, whose next run is a conflict task.
func (l *Lander) returnConflict(ctx context.Context, p board.Project, t board.Ticket, rec board.Landing, a Approval, c *workspace.ConflictError) (Result, error) {
	s := l.opts.Store
	rec.Error = fmt.Sprintf("%s moved and now conflicts with %s in %s; the ticket went back to the agent to bring %s in and resolve it.",
		c.Base, c.Branch, strings.Join(quoted(c.Files), ", "), c.Base)
	if _, err := s.SaveLanding(ctx, rec); err != nil {
		return Result{}, err
	}
	feedback := workspace.ConflictHelp(p, c.Files) + fmt.Sprintf("\n\n%s approved the work; once it is back in VERIFICATION it needs approving again.", a.by())
	if t.State == board.Done {
		return Result{}, &Failure{Cause: rec.Error, Fix: "the ticket is DONE, so no agent works it: move it back with `bonsai ticket move " + t.Ref().String() + " BACKLOG` and hand it over again"}
	}
	t, err := s.MoveTicket(ctx, a.Ref, board.MoveRequest{To: board.InProgress, Actor: board.System, Feedback: feedback}, System)
	if err != nil {
		return Result{}, err
	}
	return Result{Outcome: Returned, Ticket: t, Landing: rec,
		Message: fmt.Sprintf("%s did not land: %s", t.Ref(), rec.Error)}, nil
}

// failed records a failure to land on the ticket and returns it.
func (l *Lander) failed(ctx context.Context, p board.Project, t board.Ticket, rec board.Landing, a Approval, err error) (Result, error) {
	f := explain(p, t, err)
	rec.Error = f.Error()
	if _, serr := l.opts.Store.SaveLanding(ctx, rec); serr != nil {
		return Result{}, errors.Join(f, serr)
	}
	where := "The ticket stays in VERIFICATION"
	if t.State == board.Done {
		where = "The ticket stays DONE"
	}
	text := fmt.Sprintf("%s approved this ticket, but its work did not land: %s.\n\nFix: %s.\n\n%s; nothing was changed on `%s`.",
		a.by(), f.Cause, f.Fix, where, p.DefaultBranch)
	if _, cerr := l.opts.Store.AddComment(ctx, a.Ref, board.Comment{AuthorType: board.System, AuthorName: System, Kind: board.KindStatus, Content: text}); cerr != nil {
		return Result{}, errors.Join(f, cerr)
	}
	return Result{Outcome: Failed, Ticket: t, Landing: rec, Message: f.Error()}, f
}

// explain turns an error of landing into its cause and fix.
func explain(p board.Project, t board.Ticket, err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	retry := fmt.Sprintf("then land it again: `bonsai ticket land %s`", t.Ref())
	var pe *workspace.PushRejectedError
	var re *workspace.RepoError
	switch {
	case errors.As(err, &pe) && pe.Reason == workspace.RejectedProtected:
		return &Failure{Err: err, Cause: fmt.Sprintf("%s refused the push because `%s` is a protected branch", workspace.Redact(p.Repo), p.DefaultBranch),
			Fix: fmt.Sprintf("land through a pull request (`bonsai project edit %s --land pr`) or let these credentials push to `%s`, %s", p.Slug, p.DefaultBranch, retry)}
	case errors.As(err, &pe) && pe.Reason == workspace.RejectedMoved:
		return &Failure{Err: err, Cause: fmt.Sprintf("`%s` moved on %s while the work was being landed", p.DefaultBranch, workspace.Redact(p.Repo)),
			Fix: "nothing to repair: " + retry}
	case errors.As(err, &pe) && pe.Reason == workspace.RejectedDirtyCheckout:
		return &Failure{Err: err, Cause: fmt.Sprintf("%s has `%s` checked out with uncommitted changes, which landing would overwrite", p.Repo, p.DefaultBranch),
			Fix: "commit or stash them there, " + retry}
	case errors.As(err, &pe):
		return &Failure{Err: err, Cause: fmt.Sprintf("%s refused the push of `%s`: %v", workspace.Redact(p.Repo), p.DefaultBranch, pe.Err),
			Fix: "fix what git says, " + retry}
	case errors.As(err, &re):
		return &Failure{Err: err, Cause: fmt.Sprintf("the repository %s could not be reached: %v", workspace.Redact(p.Repo), re),
			Fix: "check that it is reachable with the runtime's credentials, " + retry}
	}
	return &Failure{Err: err, Cause: err.Error(), Fix: "fix it, " + retry}
}

func mergeText(p board.Project, ld workspace.Landed) string {
	switch {
	case ld.AlreadyThere:
		return fmt.Sprintf("`%s` already had its work (at %s)", p.DefaultBranch, short(ld.Commit))
	case ld.FastForward:
		return fmt.Sprintf("`%s` was fast-forwarded to %s", p.DefaultBranch, short(ld.Commit))
	}
	return fmt.Sprintf("it landed on `%s` as %s (%s)", p.DefaultBranch, short(ld.Commit), p.Agent.LandStyle)
}

func noneText(p board.Project, t board.Ticket) string {
	return fmt.Sprintf("the project does not land work, so it stays on the branch `%s`; the ticket page says how to merge it", t.Branch)
}

func quoted(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = "`" + f + "`"
	}
	return out
}

// short abbreviates a commit id.
func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
