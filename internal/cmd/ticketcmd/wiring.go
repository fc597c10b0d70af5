// Package ticketcmd holds `bonsai ticket` and `bonsai comment`: creating,
// listing, showing, editing and moving tickets, approving and landing
// their work, deciding held commands, stopping and starting runs, their
// transcripts and follow-ups, and people's comments.
package ticketcmd

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
)

// Approver approves ticket ref as the approving person (or, again, lands
// its work once more) with an optional note (internal/cli's landing
// wiring).
type Approver func(ctx context.Context, ref board.Ref, note string, again bool) (land.Result, error)

// Wiring is what the ticket commands need from the composition root.
type Wiring struct {
	Approve Approver
	// RunNow starts a beat for ticket ref of the board s in data
	// directory d and says what it did (`ticket run`).
	RunNow func(ctx context.Context, d config.Dir, s store.Store, ref board.Ref) (string, error)
	// RunVariants creates the variants of ticket ref and starts a beat
	// for them (`ticket run --variants`).
	RunVariants func(ctx context.Context, d config.Dir, s store.Store, ref board.Ref, specs []board.VariantSpec) (string, error)
	// ReturnVariant returns variant n of ticket ref with feedback
	// (`ticket variants --return`).
	ReturnVariant func(ctx context.Context, ref board.Ref, n int, feedback string) (board.Ticket, error)
	// Blockers says what keeps agents from working project p (`ticket
	// show`).
	Blockers func(p board.Project) ([]view.Blocker, view.AgentFacts)
}
