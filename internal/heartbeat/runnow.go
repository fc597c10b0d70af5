package heartbeat

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// NotRunnableError says why the ticket a beat was asked to run
// (Options.Ticket) is not one an agent may work on now.
type NotRunnableError struct {
	Ref    board.Ref
	Reason string
}

func (e *NotRunnableError) Error() string {
	return fmt.Sprintf("%s cannot run now: %s", e.Ref, e.Reason)
}

// pickStore is what picking one ticket reads.
type pickStore interface {
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	Project(ctx context.Context, slug string) (board.Project, error)
	Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
	linkReader
}

// pickOne returns the pick of ticket ref (Options.Ticket): the ticket and the class the
// pick policy gives it, whatever else waits in its project. The board's
// rules still hold: a ticket an agent may not work on (blocked, in
// VERIFICATION or DONE, in BACKLOG of a project that does not take it,
// in an archived project) is a *NotRunnableError.
func pickOne(ctx context.Context, st pickStore, ref board.Ref) ([]board.Pick, error) {
	t, err := st.Ticket(ctx, ref)
	if err != nil {
		return nil, err
	}
	proj, err := st.Project(ctx, ref.Project)
	if err != nil {
		return nil, err
	}
	if !proj.Active {
		return nil, &NotRunnableError{ref, fmt.Sprintf("project %s is archived (bonsai project restore %s)", proj.Slug, proj.Slug)}
	}
	comments, err := st.Comments(ctx, ref)
	if err != nil {
		return nil, err
	}
	c := board.Candidate{Ticket: t}
	for _, cm := range comments {
		if cm.AuthorType == board.Human && !cm.Resolved && cm.CreatedAt.After(c.LastHumanComment) {
			c.LastHumanComment = cm.CreatedAt
		}
	}
	ls, err := st.TicketLinks(ctx, ref)
	if err != nil {
		return nil, err
	}
	if w := ls.WaitingText(); w != "" {
		return nil, &NotRunnableError{ref, "it " + w + "; it runs once they are DONE (or: bonsai ticket unlink)"}
	}
	class := board.Classify(c, proj.Agent.TakeBacklog)
	if class == board.ClassNone {
		return nil, &NotRunnableError{ref, notRunnable(t)}
	}
	return []board.Pick{{Ticket: t, Class: class}}, nil
}

// notRunnable says why the pick policy leaves t alone, and what to do.
func notRunnable(t board.Ticket) string {
	switch {
	case t.SubState == board.SubBlocked:
		return "it is blocked waiting for a person; answer its question (bonsai comment " + t.Ref().String() + ") or unblock it first"
	case t.State == board.Backlog:
		return "it is in BACKLOG; move it to RESEARCH or IN_PROGRESS first (bonsai ticket move " + t.Ref().String() + " research)"
	case t.State == board.Verification:
		return "it is in VERIFICATION, waiting for a person's review; send it back to IN_PROGRESS to have an agent work on it"
	case t.State == board.Done:
		return "it is DONE"
	}
	return fmt.Sprintf("agents do not work on tickets in %s", t.State)
}
