package sqlstore

import (
	"context"
	"fmt"
	"math/bits"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// runControlsBatch is the most run IDs one RunControls query names; a
// longer list takes one query per batch.
const runControlsBatch = 512

// RunControl returns what the process running run id polls: its status,
// whether a stop was asked for, and when the newest unresolved human
// comment on its ticket was posted. It reads one run by its primary key
// and one ticket by its: cheap enough to poll twice a second per run.
func (db *DB) RunControl(ctx context.Context, id string) (board.RunControl, error) {
	out := map[string]board.RunControl{}
	err := db.runControls(ctx, []string{id}, out)
	c, ok := out[id]
	if err == nil && !ok {
		err = board.Errorf(board.ENOTFOUND, "run %q not found", id)
	}
	return result(c, wrap(err, "read the control of run %s", id))
}

// RunControls returns what RunControl returns for each run of ids that
// exists, keyed by run ID, in one query for up to 512 runs: a heartbeat
// reads the control of all its running runs at once (docs/heartbeat.md,
// "Run control"). An unknown ID is left out of the map.
func (db *DB) RunControls(ctx context.Context, ids []string) (map[string]board.RunControl, error) {
	out := make(map[string]board.RunControl, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), runControlsBatch)
		if err := db.runControls(ctx, ids[:n], out); err != nil {
			return nil, fmt.Errorf("read the control of %d runs: %w", len(ids), err)
		}
		ids = ids[n:]
	}
	return out, nil
}

// runControls reads the control rows of ids into out. The list is padded
// to a power of two by repeating its last ID, so that the statement's
// text takes one of a few forms whatever the number of runs.
func (db *DB) runControls(ctx context.Context, ids []string, out map[string]board.RunControl) error {
	args := make([]any, 0, 1<<bits.Len(uint(len(ids)-1)))
	for _, id := range ids {
		args = append(args, id)
	}
	for len(args) < cap(args) {
		args = append(args, ids[len(ids)-1])
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ")
	return each(ctx, db, func(s scanner) error {
		var id string
		var c board.RunControl
		err := s.Scan(&id, &c.Status, msPtr{&c.StopRequestedAt}, &c.StopRequestedBy, ms{&c.LastHumanComment})
		out[id] = c
		return err
	}, `SELECT runs.id, runs.status, runs.stop_requested_at, runs.stop_requested_by,
		tickets.last_human_comment_at FROM runs JOIN tickets ON tickets.id = runs.ticket_id
		WHERE runs.id IN (`+marks+`)`, args...)
}
