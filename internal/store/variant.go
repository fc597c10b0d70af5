package store

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Variants are the best of N runs of tickets (docs/heartbeat.md,
// "Variants"): each variant a ticket of its own, tied to the ticket
// compared.
type Variants interface {
	// CreateVariants creates one variant ticket per spec of v, in
	// IN_PROGRESS with the ticket's description, criteria and plan, links
	// the ticket as blocked by each, and records them as a new round, in
	// one transaction. It refuses (EREFUSED, the reason in the error) a
	// ticket not in IN_PROGRESS, one that is itself a variant, one with
	// variants still running, one blocked by a person or with a run still
	// running.
	CreateVariants(ctx context.Context, v NewVariants) ([]board.Variant, error)
	// Variants returns the variants of ref's latest round, by number;
	// ref may be the ticket compared or one of its variants. A ticket
	// never run N ways has none.
	Variants(ctx context.Context, ref board.Ref) ([]board.Variant, error)
	// FailVariant marks the running variant whose own ticket is ref
	// failed with reason, and moves that ticket out of the queue (to
	// DONE, as the runtime): it never runs.
	FailVariant(ctx context.Context, ref board.Ref, reason string) (board.Variant, error)
	// CloseVariants ends the running round of ticket ref: the variant
	// numbered chosen (0 for none) becomes chosen, the others closed
	// with reason, and every variant ticket not DONE moves to DONE, as
	// the runtime. It returns the round's variants as they are after.
	CloseVariants(ctx context.Context, ref board.Ref, chosen int, reason string) ([]board.Variant, error)
	// ProjectVariants lists every variant of project slug, of every
	// round, by ticket, round and number: the board shows a ticket run N
	// ways as one card.
	ProjectVariants(ctx context.Context, slug string) ([]board.Variant, error)
}

// NewVariants asks for a ticket to be run N ways.
type NewVariants struct {
	Ticket board.Ref
	Specs  []board.VariantSpec
	// BudgetUSD and BudgetTokens are each variant's share of the
	// ticket's caps; 0 for none.
	BudgetUSD    float64
	BudgetTokens int64
	Actor        board.Actor
	// Comment, when it has content, is added to the ticket.
	Comment board.Comment
}
