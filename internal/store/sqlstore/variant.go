package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// variantColumns are the columns scanVariant reads, with the two tickets'
// references (v: the variants row, t: the ticket compared, w: the
// variant's own ticket, p: their project).
const variantColumns = `p.slug, t.number, w.number, v.round, v.number, v.engine, v.model, v.budget_usd,
	v.budget_tokens, v.state, v.reason, v.created_at, v.updated_at
	FROM variants v JOIN tickets t ON t.id = v.ticket_id JOIN tickets w ON w.id = v.variant_id
	JOIN projects p ON p.id = t.project_id`

func scanVariant(s scanner) (board.Variant, error) {
	var v board.Variant
	var created, updated int64
	err := s.Scan(&v.Ticket.Project, &v.Ticket.Number, &v.Ref.Number, &v.Round, &v.Number, &v.Engine, &v.Model,
		&v.BudgetUSD, &v.BudgetTokens, &v.State, &v.Reason, &created, &updated)
	v.Ref.Project = v.Ticket.Project
	v.CreatedAt, v.UpdatedAt = fromMillis(created), fromMillis(updated)
	return v, err
}

// CreateVariants implements store.Variants.
func (db *DB) CreateVariants(ctx context.Context, nv store.NewVariants) ([]board.Variant, error) {
	if err := board.CheckVariantRequest(nv.Actor, len(nv.Specs), nv.Comment); err != nil {
		return nil, err
	}
	return onTicket(ctx, db, nv.Ticket, "run as variants", func(tx *tx, t board.Ticket) ([]board.Variant, error) {
		var round int
		err := variantsAllowed(ctx, tx, t)
		if err == nil {
			err = tx.queryRow(`SELECT COALESCE(MAX(round), 0) + 1 FROM variants WHERE ticket_id = ?`, t.ID).Scan(&round)
		}
		if err != nil {
			return nil, err
		}
		for i, spec := range nv.Specs {
			w, err := board.VariantTicket(t, i+1, spec)
			if err != nil {
				return nil, fmt.Errorf("variant %d: %w", i+1, err)
			}
			if err := db.insertTicket(tx, &w, nv.Actor); err != nil {
				return nil, err
			}
			if err := tx.insertLink(t, w, board.LinkBlockedBy, nv.Actor); err != nil {
				return nil, err
			}
			if _, err := tx.exec(`INSERT INTO variants (ticket_id, round, number, variant_id, engine, model, budget_usd,
				budget_tokens, state, reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running', '', ?, ?)`,
				t.ID, round, i+1, w.ID, string(spec.Engine), spec.Model, nv.BudgetUSD, nv.BudgetTokens, tx.nowMs(), tx.nowMs()); err != nil {
				return nil, err
			}
		}
		if nv.Comment.Content != "" {
			_, err = tx.addComment(&t, nv.Comment)
		}
		if err != nil {
			return nil, err
		}
		return roundVariants(tx, t.ID, round)
	})
}

// roundVariants lists the variants of one round of a ticket.
func roundVariants(tx *tx, ticketID string, round int) ([]board.Variant, error) {
	return list(tx.ctx, tx, scanVariant, `SELECT `+variantColumns+` WHERE v.ticket_id = ? AND v.round = ? ORDER BY v.number`, ticketID, round)
}

// variantsAllowed says why ticket t may not be run N ways now, or nil
// (board.CheckVariants).
func variantsAllowed(ctx context.Context, tx *tx, t board.Ticket) error {
	var isVariant, inFlight, running bool
	err := tx.queryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM variants WHERE variant_id = ?),
		EXISTS (SELECT 1 FROM variants WHERE ticket_id = ? AND state = 'running'),
		EXISTS (SELECT 1 FROM runs WHERE ticket_id = ? AND status = 'running')`, t.ID, t.ID, t.ID).Scan(&isVariant, &inFlight, &running)
	if err != nil {
		return err
	}
	return board.CheckVariants(t, isVariant, inFlight, running)
}

// Variants implements store.Variants.
func (db *DB) Variants(ctx context.Context, ref board.Ref) ([]board.Variant, error) {
	t, err := getTicket(ctx, db, ref)
	if err != nil {
		return nil, err
	}
	id := t.ID // or the ticket compared, when t is one of its variants
	err = db.queryRowContext(ctx, `SELECT ticket_id FROM variants WHERE variant_id = ?`, t.ID).Scan(&id)
	if err = absent(err); err != nil {
		return nil, err
	}
	vs, err := list(ctx, db, scanVariant, `SELECT `+variantColumns+` WHERE v.ticket_id = ?
		AND v.round = (SELECT MAX(round) FROM variants WHERE ticket_id = ?) ORDER BY v.number`, id, id)
	return vs, wrap(err, "read the variants of %s", ref)
}

// FailVariant implements store.Variants.
func (db *DB) FailVariant(ctx context.Context, ref board.Ref, reason string) (board.Variant, error) {
	return onTicket(ctx, db, ref, "fail variant", func(tx *tx, w board.Ticket) (board.Variant, error) {
		err := tx.execOne(board.Errorf(board.ENOTFOUND, "%s is no running variant", ref),
			`UPDATE variants SET state = 'failed', reason = ?, updated_at = ? WHERE variant_id = ? AND state = 'running'`,
			reason, tx.nowMs(), w.ID)
		if err == nil {
			err = tx.closeVariantTicket(w)
		}
		if err != nil {
			return board.Variant{}, err
		}
		return scanVariant(tx.queryRow(`SELECT `+variantColumns+` WHERE v.variant_id = ?`, w.ID))
	})
}

// CloseVariants implements store.Variants.
func (db *DB) CloseVariants(ctx context.Context, ref board.Ref, chosen int, reason string) ([]board.Variant, error) {
	return onTicket(ctx, db, ref, "close the variants of", func(tx *tx, t board.Ticket) ([]board.Variant, error) {
		var round int
		err := tx.queryRow(`SELECT MAX(round) FROM variants WHERE ticket_id = ? AND state = 'running'`, t.ID).Scan(&round)
		if err != nil || round == 0 {
			return nil, errors.Join(err, board.Errorf(board.EREFUSED, "%s has no variants in flight", ref))
		}
		if chosen > 0 {
			err := tx.execOne(board.Errorf(board.ENOTFOUND, "%s has no running variant %d", ref, chosen),
				`UPDATE variants SET state = 'chosen', updated_at = ? WHERE ticket_id = ? AND round = ? AND number = ? AND state = 'running'`,
				tx.nowMs(), t.ID, round, chosen)
			if err != nil {
				return nil, err
			}
		}
		if _, err := tx.exec(`UPDATE variants SET state = 'closed', reason = ?, updated_at = ? WHERE ticket_id = ? AND round = ? AND state = 'running'`,
			reason, tx.nowMs(), t.ID, round); err != nil {
			return nil, err
		}
		ids, err := list(ctx, tx, scanString, `SELECT variant_id FROM variants WHERE ticket_id = ? AND round = ?`, t.ID, round)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			w, err := getTicketByID(ctx, tx, id)
			if err == nil {
				err = tx.closeVariantTicket(w)
			}
			if err != nil {
				return nil, err
			}
		}
		return roundVariants(tx, t.ID, round)
	})
}

// closeVariantTicket moves variant ticket w to DONE as the runtime, out
// of the queue and out of its ticket's blockers; a DONE one stays.
func (tx *tx) closeVariantTicket(w board.Ticket) error {
	if w.State == board.Done {
		return nil
	}
	from := w.State
	w.State, w.SubState = board.Done, board.SubNone
	if err := tx.saveTicket(&w); err != nil {
		return err
	}
	return tx.movedEvent(w, from, board.System)
}

// ProjectVariants implements store.Variants.
func (db *DB) ProjectVariants(ctx context.Context, slug string) ([]board.Variant, error) {
	vs, err := list(ctx, db, scanVariant, `SELECT `+variantColumns+` WHERE p.slug = ? ORDER BY t.number, v.round, v.number`, slug)
	return vs, wrap(err, "read the variants of %s", slug)
}
