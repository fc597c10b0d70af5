package land

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// reviewed returns the commits recorded for review of ticket t, which
// are what lands. A ticket with none (it reached VERIFICATION before
// Bonsai recorded reviews, or its recording failed) has its branch
// recorded now and the approval refused: the person approved a diff that
// was not read from recorded commits, so they look at the Changes page,
// which now shows exactly what lands, and approve again.
func (l *Lander) reviewed(ctx context.Context, p board.Project, t board.Ticket) (board.Review, error) {
	rv, err := l.opts.Store.Review(ctx, t.Ref())
	if err != nil || rv.Tip != "" {
		return rv, err
	}
	tip, err := l.record(ctx, p, t)
	if err != nil {
		return board.Review{}, err
	}
	return board.Review{}, &Failure{
		Cause: fmt.Sprintf("the work on `%s` had not been recorded for review, so what was approved may not be what would land; it is recorded now, at %s", t.Branch, short(tip)),
		Fix:   fmt.Sprintf("look at the ticket's Changes page, which shows exactly what lands, then approve again (`bonsai ticket approve %s`)", t.Ref())}
}

// reviewAgain records the branch that moved after its review and refuses
// the approval: nobody reviewed the new commits.
func (l *Lander) reviewAgain(ctx context.Context, p board.Project, t board.Ticket, m *workspace.MovedError) error {
	tip, err := l.record(ctx, p, t)
	if err != nil {
		return err
	}
	return &Failure{Err: m,
		Cause: fmt.Sprintf("the branch `%s` moved after it was reviewed (reviewed %s, now %s), so the approved work is not what would land", t.Branch, short(m.Reviewed), short(tip)),
		Fix: fmt.Sprintf("the Changes page now shows the branch at %s: review it and approve again, or move the ticket back to IN_PROGRESS (`bonsai ticket move %s IN_PROGRESS`) so that the agent submits it again",
			short(tip), t.Ref())}
}

// record reads ticket t's branch into the runtime's own repository and
// records it as the ticket's review; it returns the recorded tip.
func (l *Lander) record(ctx context.Context, p board.Project, t board.Ticket) (string, error) {
	if l.opts.Git == nil {
		return "", noGit(t)
	}
	rv, err := l.opts.Git.Review(ctx, p, t.Number, t.Branch)
	if err != nil {
		return "", err
	}
	if _, err := l.opts.Store.SetReview(ctx, board.Review{Ref: t.Ref(), Base: rv.Base, Tip: rv.Tip}); err != nil {
		return "", err
	}
	return rv.Tip, nil
}

// noGit is the failure of a process that has no git workspace.
func noGit(t board.Ticket) *Failure {
	return &Failure{Cause: "this process cannot merge (no git workspace is configured)",
		Fix: fmt.Sprintf("run `bonsai ticket land %s` on the machine of the heartbeat", t.Ref())}
}
