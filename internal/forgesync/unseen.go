package forgesync

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/land"
)

// unseenChanges refuses to merge the pull request of l while a request
// for changes on the forge has not reached the ticket (issue 27: with a
// token that could not read the reviews, a ticket was approved over
// one). It reads the reviews after the landing's cursor without moving
// it: the next beat gives them to the ticket. A forge that does not
// answer, or asks to wait, is returned as it is: the merge is then kept
// to be tried again like one the forge did not answer.
func (f *Forges) unseenChanges(ctx context.Context, c forge.Client, l board.Landing) error {
	rs, _, err := c.Reviews(ctx, l.PRNumber, l.ReviewCursor)
	if err != nil {
		if transient(err) {
			return err
		}
		var fe *forge.Error
		if !errors.As(err, &fe) {
			return err
		}
		return &land.Failure{Err: err,
			Cause: fmt.Sprintf("Bonsai cannot read the reviews of %s, so a request for changes there may not have reached the ticket (%s)", prName(l.Forge, l.PRNumber), fe.Cause()),
			Fix:   fe.Fix() + "; or read the reviews on " + forgeName(l.Forge) + " and merge there"}
	}
	var who []string
	for _, r := range rs {
		if r.Kind == forge.ChangesRequested && (!r.Outsider || r.Unknown) {
			who = append(who, r.Author)
		}
	}
	if len(who) == 0 {
		return nil
	}
	return &land.Failure{
		Cause: fmt.Sprintf("%s requested changes on %s (%s) after the ticket last heard from it", strings.Join(unique(who), ", "), prName(l.Forge, l.PRNumber), l.PRURL),
		Fix:   "read the review; the next beat gives it to the ticket, which returns to the agent. Approve once it is dealt with"}
}
