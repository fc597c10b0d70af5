package land

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// ReopenStore is what reopening a DONE ticket reads and writes.
type ReopenStore interface {
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	Landing(ctx context.Context, ref board.Ref) (board.Landing, error)
	CreateTicket(ctx context.Context, t board.Ticket, actor board.Actor) (board.Ticket, error)
	AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error)
}

// Reopen creates the follow-up of DONE ticket ref (board.FollowUp), in
// BACKLOG, and comments on the original naming it, as author.
func Reopen(ctx context.Context, s ReopenStore, ref board.Ref, author, title, note string, criteria []string) (board.Ticket, error) {
	t, err := s.Ticket(ctx, ref)
	if err != nil {
		return board.Ticket{}, err
	}
	l, err := landingOf(ctx, s, ref)
	if err != nil {
		return board.Ticket{}, err
	}
	f, err := board.FollowUp(t, l, title, note, criteria)
	if err != nil {
		return board.Ticket{}, err
	}
	if f, err = s.CreateTicket(ctx, f, board.Human); err != nil {
		return board.Ticket{}, err
	}
	if _, err := s.AddComment(ctx, ref, board.FollowUpComment(f, author)); err != nil {
		return f, err
	}
	return f, nil
}

// CheckLeaveDone refuses a person's move of a DONE ticket whose work
// landed (board.CheckLeaveDone); other tickets pass.
func CheckLeaveDone(ctx context.Context, s ReopenStore, ref board.Ref, req board.MoveRequest) error {
	t, err := s.Ticket(ctx, ref)
	if err != nil || t.State != board.Done {
		return err
	}
	l, err := landingOf(ctx, s, ref)
	if err != nil {
		return err
	}
	return board.CheckLeaveDone(t, l, req)
}

// landingOf is a ticket's landing record, empty when it has none.
func landingOf(ctx context.Context, s interface {
	Landing(ctx context.Context, ref board.Ref) (board.Landing, error)
}, ref board.Ref) (board.Landing, error) {
	l, err := s.Landing(ctx, ref)
	if board.ErrorCode(err) == board.ENOTFOUND {
		return board.Landing{Ref: ref}, nil
	}
	return l, err
}
