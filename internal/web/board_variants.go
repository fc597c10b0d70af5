package web

import (
	"context"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// The board shows a ticket run N ways as one card (docs/web.md): its
// variants' own tickets are not cards of their own, and the ticket's card
// says how many variants it runs while they are in flight.

// boardVariants is what the board knows of a project's variants.
type boardVariants struct {
	hidden map[int]bool   // the variants' own ticket numbers
	badge  map[int]string // a ticket's in-flight round, e.g. "3 variants"
}

// loadBoardVariants reads project slug's variants; a store without them
// (a test double) hides nothing.
func (s *Server) loadBoardVariants(ctx context.Context, slug string) (boardVariants, error) {
	bv := boardVariants{hidden: map[int]bool{}, badge: map[int]string{}}
	st, ok := s.store.(interface {
		ProjectVariants(ctx context.Context, slug string) ([]board.Variant, error)
	})
	if !ok {
		return bv, nil
	}
	vs, err := st.ProjectVariants(ctx, slug)
	if err != nil {
		return bv, err
	}
	running := map[int]int{}
	for _, v := range vs {
		bv.hidden[v.Ref.Number] = true
		if v.State.InFlight() {
			running[v.Ticket.Number]++
		}
	}
	for n, k := range running {
		bv.badge[n] = fmt.Sprintf("%d variants", k)
	}
	return bv, nil
}

// withVariants returns c with its variants' badge, if it runs N ways.
func (c card) withVariants(bv boardVariants) card {
	c.Variants = bv.badge[c.Number]
	return c
}

// checkVariantMove refuses a person's move of ticket ref while its
// variants are in flight (board.CheckVariantMove).
func (s *Server) checkVariantMove(ctx context.Context, ref board.Ref) error {
	st, ok := s.store.(interface {
		Variants(ctx context.Context, ref board.Ref) ([]board.Variant, error)
	})
	if !ok {
		return nil
	}
	vs, err := st.Variants(ctx, ref)
	if err != nil {
		return err
	}
	return board.CheckVariantMove(vs, ref)
}
