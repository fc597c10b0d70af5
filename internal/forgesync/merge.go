package forgesync

import (
	"context"
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/land"
)

var (
	_ land.PullRequests      = (*Forges)(nil)
	_ heartbeat.PullRequests = (*Forges)(nil)
)

// Merge merges the ticket's pull request through the forge's API with the
// project's land style (land.PullRequests). The head must still be the
// reviewed commit (req.Reviewed; else the one last seen), so a push after
// the review is not merged unseen. A
// refusal is a *land.Failure naming the forge's cause and the fix.
func (f *Forges) Merge(ctx context.Context, req land.MergeRequest) (land.Merged, error) {
	ref := req.Ticket.Ref()
	l := req.Landing
	if l.PRNumber == 0 {
		var err error
		if l, err = f.opts.Board.Landing(ctx, ref); err != nil && board.ErrorCode(err) != board.ENOTFOUND {
			return land.Merged{}, err
		}
	}
	if l.PRNumber == 0 && req.Ticket.Branch != "" {
		// Opening it failed when the ticket reached VERIFICATION (the
		// beats try again): the approval tries now.
		if err := f.Publish(ctx, req.Project, req.Ticket); err != nil {
			return land.Merged{}, failure(err)
		}
		var err error
		if l, err = f.opts.Board.Landing(ctx, ref); err != nil {
			return land.Merged{}, err
		}
	}
	if l.PRNumber == 0 {
		return land.Merged{}, &land.Failure{Cause: fmt.Sprintf("%s has no pull request yet", ref),
			Fix: "its branch is not pushed yet: the ticket's next run pushes it; or run `bonsai heartbeat --ticket " + ref.String() + "`"}
	}
	c, err := f.Client(req.Project)
	if err != nil {
		return land.Merged{}, failure(err)
	}
	if l.PRState == board.PRMerged {
		return land.Merged{Commit: l.Commit}, nil
	}
	head := l.HeadSHA
	if req.Reviewed != "" {
		if head != "" && head != req.Reviewed {
			return land.Merged{}, &land.Failure{
				Cause: fmt.Sprintf("the head of %s (%.12s) is not the commit that was reviewed (%.12s)", prName(l.Forge, l.PRNumber), head, req.Reviewed),
				Fix:   fmt.Sprintf("move the ticket back to IN_PROGRESS (`bonsai ticket move %s IN_PROGRESS`) so that the agent submits it again, which records it for review", ref)}
		}
		head = req.Reviewed
	}
	err = f.unseenChanges(ctx, c, l) // issue 27, item 6 (unseen.go)
	var sha string
	if err == nil {
		sha, err = c.Merge(ctx, l.PRNumber, forge.MergeRequest{Style: style(req.Project.Agent.LandStyle),
			Title: req.Message.Subject, Message: req.Message.Body, SHA: head})
	}
	if err != nil {
		if transient(err) { // issue 27, item 10: the beats try again (retry.go)
			if next, ok := f.queueMerge(ref, newPending(req, l, head, f.opts.Now()), err); ok {
				return land.Merged{}, retryFailure(err, next)
			}
		}
		return land.Merged{}, failure(err)
	}
	f.dropMerge(ref)
	l.PRState, l.Commit, l.LandedAt, l.Error = board.PRMerged, sha, f.opts.Now(), ""
	if _, err := f.opts.Board.SaveLanding(ctx, l); err != nil {
		f.log.Error("save landing", "ticket", ref.String(), "err", err)
	}
	return land.Merged{Commit: sha}, nil
}

// style maps the project's land style.
func style(s board.LandStyle) forge.Style {
	switch s {
	case board.LandMergeCommit:
		return forge.Merge
	case board.LandRebase:
		return forge.Rebase
	}
	return forge.Squash
}

// failure turns a forge's refusal into the failure a person acts on.
func failure(err error) error {
	var lf *land.Failure
	if errors.As(err, &lf) {
		return lf // already one
	}
	var fe *forge.Error
	if errors.As(err, &fe) {
		return &land.Failure{Cause: fe.Cause(), Fix: fe.Fix(), Err: err}
	}
	var nf *forge.NotForgeError
	if errors.As(err, &nf) {
		return &land.Failure{Cause: "the project's repository is not on a known forge", Fix: err.Error(), Err: err}
	}
	return err
}
