package forgesync

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// ClosePR closes the open pull request of ticket ref, which will not be
// landed (a variant closed when another was chosen), and forgets a
// pending publish or merge of it, so no beat opens, follows or merges it
// again. The landing record says the pull request is closed; a ticket
// without an open pull request has nothing to close. It says what it
// closed ("" for nothing).
func (f *Forges) ClosePR(ctx context.Context, p board.Project, ref board.Ref) (string, error) {
	f.dropPublish(ref)
	f.dropMerge(ref)
	l, err := f.opts.Board.Landing(ctx, ref)
	if board.ErrorCode(err) == board.ENOTFOUND {
		return "", nil
	}
	if err != nil || l.PRNumber == 0 || l.PRState != board.PROpen {
		return "", err
	}
	c, err := f.Client(p)
	if err != nil {
		return "", err
	}
	if _, err := c.ClosePR(ctx, l.PRNumber); err != nil {
		return "", err
	}
	l.PRState, l.Error = board.PRClosed, ""
	if err := f.save(ctx, l); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s closed on %s", prName(l.Forge, l.PRNumber), forgeName(l.Forge)), nil
}
