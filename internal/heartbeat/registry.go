package heartbeat

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Registry is the store's workers registry (store.Workers): on a board
// several machines share, each beat records its worker, so `bonsai status`
// lists every worker, also one that holds no lease and ran nothing lately.
type Registry interface {
	RecordBeat(ctx context.Context, b board.WorkerBeat) (board.WorkerBeat, error)
}

// recordBeat records this beat's worker on a shared board: one write a
// beat. One machine's board records nothing, so an idle beat there writes
// nothing. A failure is logged: the beat goes on without it.
func (h *Heartbeat) recordBeat(ctx context.Context) {
	if !h.opts.SharedBoard || h.opts.Registry == nil {
		return
	}
	b := h.opts.Worker
	if b.ID == "" {
		b.ID = h.opts.WorkerID
	}
	if _, err := h.opts.Registry.RecordBeat(ctx, b); err != nil {
		h.log.Error("record the worker's beat", "worker", b.ID, "err", err)
	}
}
