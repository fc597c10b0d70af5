package heartbeat

import (
	"context"
	"log/slog"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Registry is the store's workers registry (store.Workers): on a board
// several machines share, each beat records its worker, so `bonsai status`
// lists every worker, also one that holds no lease and ran nothing lately.
type Registry interface {
	RecordBeat(ctx context.Context, b board.WorkerBeat) (board.WorkerBeat, error)
}

// recordBeat records worker b's beat in reg, on a shared board: one
// write a beat (one machine's board records nothing, so an idle beat
// there writes nothing). A failure is logged: the beat goes on without it.
func recordBeat(ctx context.Context, reg Registry, b board.WorkerBeat, log *slog.Logger) {
	if _, err := reg.RecordBeat(ctx, b); err != nil {
		log.Error("record the worker's beat", "worker", b.ID, "err", err)
	}
}
