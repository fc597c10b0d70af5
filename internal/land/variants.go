package land

import (
	"context"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Variants (docs/landing.md, "Variants"): a ticket run N ways has one
// ticket per variant. Approving a variant lands it as any ticket, then
// makes its ticket DONE with the same landing and closes the others:
// their branches are deleted from the clone and their worktrees removed.
// Returning one with feedback makes its branch the ticket's and closes
// the others; the ticket's agent goes on from it.

// VariantStore is what choosing a variant writes besides Store; the
// board's stores implement it.
type VariantStore interface {
	Variants(ctx context.Context, ref board.Ref) ([]board.Variant, error)
	CloseVariants(ctx context.Context, ref board.Ref, chosen int, reason string) ([]board.Variant, error)
	UpdateTicket(ctx context.Context, ref board.Ref, u board.TicketPatch, actor board.Actor) (board.Ticket, error)
}

// BranchCloser deletes a closed variant's branch from the clone and the
// project's repository and removes its worktree (workspace.Provider's
// CloseBranch).
type BranchCloser interface {
	CloseBranch(ctx context.Context, p board.Project, n int, branch string) error
}

// PRCloser closes the pull request of a ticket that will not land: the
// pr mode's pull request of a variant not chosen (forgesync.Forges). It
// says what it closed ("" for nothing).
type PRCloser interface {
	ClosePR(ctx context.Context, p board.Project, ref board.Ref) (string, error)
}

// variantsOf returns the round of ref when ref is a ticket with variants
// in flight, or one of them.
func (l *Lander) variantsOf(ctx context.Context, ref board.Ref) ([]board.Variant, bool, error) {
	vs, ok := l.opts.Store.(VariantStore)
	if !ok {
		return nil, false, nil
	}
	round, err := vs.Variants(ctx, ref)
	if err != nil || len(round) == 0 {
		return nil, false, err
	}
	for _, v := range round {
		if v.State.InFlight() {
			return round, true, nil
		}
	}
	return nil, false, nil
}

// find returns the variant whose own ticket is ref.
func find(vs []board.Variant, ref board.Ref) (board.Variant, bool) {
	for _, v := range vs {
		if v.Ref == ref {
			return v, true
		}
	}
	return board.Variant{}, false
}

// landVariant approves a variant of round vs: a.Ref must be a running
// variant. Once it landed, its ticket is DONE and the others closed.
func (l *Lander) landVariant(ctx context.Context, a Approval, again bool, vs []board.Variant) (Result, error) {
	v, ok := find(vs, a.Ref)
	if !ok {
		return Result{}, board.Errorf(board.EREFUSED, "%s runs as %d variants; approve one of them (%s), after comparing them (bonsai ticket variants %s)",
			a.Ref, len(vs), variantRefs(vs), a.Ref)
	}
	if v.State != board.VariantRunning {
		return Result{}, board.Errorf(board.EREFUSED, "variant %d of %s is %s: %s", v.Number, v.Ticket, v.State, v.Reason)
	}
	compared, err := l.opts.Store.Ticket(ctx, v.Ticket)
	if err != nil {
		return Result{}, err
	}
	a.compared = &compared
	res, err := l.landTicket(ctx, a, again)
	if err != nil || res.Outcome != Landed {
		return res, err
	}
	closed, err := l.closeRound(ctx, v, fmt.Sprintf("variant %d (%s) was approved and landed", v.Number, v.Ref), true)
	if err != nil {
		return res, err
	}
	t, err := l.finishTicket(ctx, a, v, res)
	if err != nil {
		return res, err
	}
	res.Message += fmt.Sprintf(" %s is DONE with it; %s.", t.Ref(), closed)
	return res, nil
}

// Return sends feedback to variant n of ticket ref: its branch becomes
// the ticket's, the others are closed, and the ticket goes back to its
// agent (from VERIFICATION, as a person returning work; from
// IN_PROGRESS, with the feedback as a comment), which goes on with the
// variant's engine and model.
func (l *Lander) Return(ctx context.Context, ref board.Ref, n int, author, feedback string) (board.Ticket, error) {
	if strings.TrimSpace(feedback) == "" {
		return board.Ticket{}, board.Errorf(board.EINVALID, "returning a variant needs feedback saying what to change")
	}
	vs, ok, err := l.variantsOf(ctx, ref)
	if err != nil {
		return board.Ticket{}, err
	}
	if !ok || vs[0].Ticket != ref {
		return board.Ticket{}, board.Errorf(board.EREFUSED, "%s has no variants in flight", ref)
	}
	v, err := board.NumberedVariant(vs, n)
	if err != nil {
		return board.Ticket{}, err
	}
	if v.State != board.VariantRunning {
		return board.Ticket{}, board.Errorf(board.EREFUSED, "variant %d of %s is %s: %s", v.Number, ref, v.State, v.Reason)
	}
	s, vst := l.opts.Store, l.opts.Store.(VariantStore)
	w, err := s.Ticket(ctx, v.Ref)
	if err != nil {
		return board.Ticket{}, err
	}
	closed, err := l.closeRound(ctx, v, fmt.Sprintf("variant %d (%s) was chosen to go on", v.Number, v.Ref), false)
	if err != nil {
		return board.Ticket{}, err
	}
	branch := w.Branch
	t, err := vst.UpdateTicket(ctx, ref, board.TicketPatch{Branch: &branch}, board.Human)
	if err != nil {
		return board.Ticket{}, err
	}
	note := fmt.Sprintf("Variant %d (`%s`, %s) was chosen: its branch `%s` is this ticket's now, and its agent goes on from it with that engine and model; %s.",
		v.Number, v.Spec(), v.Ref, branch, closed)
	if _, err := s.AddComment(ctx, ref, board.Comment{AuthorType: board.System, AuthorName: System, Kind: board.KindStatus, Content: note}); err != nil {
		return t, err
	}
	if t.State == board.Verification {
		return s.MoveTicket(ctx, ref, board.MoveRequest{To: board.InProgress, Actor: board.Human, Feedback: feedback}, author)
	}
	_, err = s.AddComment(ctx, ref, board.Comment{AuthorType: board.Human, AuthorName: author, Kind: board.KindFeedback, Content: feedback})
	return t, err
}

// closeRound ends v's round with v chosen: the store closes the others
// and moves every variant ticket to DONE; the others' branches (and,
// when dropChosen is false, the chosen one's worktree only) are closed
// in the clone. It says what it closed.
func (l *Lander) closeRound(ctx context.Context, v board.Variant, reason string, landed bool) (string, error) {
	vst := l.opts.Store.(VariantStore)
	after, err := vst.CloseVariants(ctx, v.Ticket, v.Number, reason)
	if err != nil {
		return "", err
	}
	p, err := l.opts.Store.Project(ctx, v.Ticket.Project)
	if err != nil {
		return "", err
	}
	var names, prs, failed []string
	for _, o := range after {
		if o.Number == v.Number && landed {
			continue
		}
		branch := ""
		if o.Number != v.Number {
			names = append(names, fmt.Sprintf("%d", o.Number))
			t, err := l.opts.Store.Ticket(ctx, o.Ref)
			if err != nil {
				return "", err
			}
			branch = t.Branch
			if pr, err := l.closePR(ctx, p, o.Ref); err != nil {
				failed = append(failed, fmt.Sprintf("%s's pull request: %v", o.Ref, err))
			} else if pr != "" {
				prs = append(prs, pr)
			}
		}
		if err := l.closeBranch(ctx, p, o.Ref, branch); err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", o.Ref, err))
		}
	}
	text := "no other variant to close"
	if len(names) > 0 {
		text = fmt.Sprintf("variant %s closed (their branches deleted, their worktrees removed)", strings.Join(names, ", "))
	}
	if len(prs) > 0 {
		text += "; " + strings.Join(prs, ", ")
	}
	if len(failed) > 0 {
		text += "; closing failed for " + strings.Join(failed, "; ") + " (the next beat removes their worktrees; delete the branches with git branch -D and git push --delete, close the pull requests on the forge)"
	}
	return text, nil
}

// closeBranch removes ticket ref's worktree and deletes branch (when not
// empty) from the clone and the project's repository.
func (l *Lander) closeBranch(ctx context.Context, p board.Project, ref board.Ref, branch string) error {
	c, ok := l.opts.Git.(BranchCloser)
	if !ok {
		return nil
	}
	return c.CloseBranch(ctx, p, ref.Number, branch)
}

// closePR closes ticket ref's pull request, when the forge side can.
func (l *Lander) closePR(ctx context.Context, p board.Project, ref board.Ref) (string, error) {
	c, ok := l.opts.PullRequests.(PRCloser)
	if !ok {
		return "", nil
	}
	return c.ClosePR(ctx, p, ref)
}

// finishTicket makes the ticket of landed variant v DONE with v's branch
// and landing, as a person approving it, and says so on it.
func (l *Lander) finishTicket(ctx context.Context, a Approval, v board.Variant, res Result) (board.Ticket, error) {
	s, vst := l.opts.Store, l.opts.Store.(VariantStore)
	branch := res.Ticket.Branch
	t, err := vst.UpdateTicket(ctx, v.Ticket, board.TicketPatch{Branch: &branch}, board.Human)
	if err != nil {
		return t, err
	}
	if t.State == board.InProgress {
		if t, err = s.MoveTicket(ctx, t.Ref(), board.MoveRequest{To: board.Verification, Actor: board.System}, System); err != nil {
			return t, err
		}
	}
	rec := res.Landing
	rec.Ref = t.Ref()
	if _, err := s.SaveLanding(ctx, rec); err != nil {
		return t, err
	}
	if t.State != board.Done {
		if t, err = s.MoveTicket(ctx, t.Ref(), board.MoveRequest{To: board.Done, Actor: board.Human}, a.by()); err != nil {
			return t, err
		}
	}
	msg := fmt.Sprintf("Variant %d (`%s`, %s) was chosen. %s", v.Number, v.Spec(), v.Ref, res.Message)
	_, err = s.AddComment(ctx, t.Ref(), board.Comment{AuthorType: board.System, AuthorName: System, Kind: board.KindStatus, Content: msg})
	return t, err
}

func variantRefs(vs []board.Variant) string {
	var refs []string
	for _, v := range vs {
		if v.State.InFlight() {
			refs = append(refs, v.Ref.String())
		}
	}
	return strings.Join(refs, ", ")
}
