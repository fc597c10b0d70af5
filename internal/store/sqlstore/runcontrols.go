package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// runControlsBatch is the most run IDs one RunControls query names; a
// longer list takes one query per batch.
const runControlsBatch = 512

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
	args := make([]any, 0, padded(len(ids)))
	for _, id := range ids {
		args = append(args, id)
	}
	for len(args) < cap(args) {
		args = append(args, ids[len(ids)-1])
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ")
	rows, err := db.queryContext(ctx, `SELECT runs.id, runs.status, runs.stop_requested_at, runs.stop_requested_by,
		tickets.last_human_comment_at FROM runs JOIN tickets ON tickets.id = runs.ticket_id
		WHERE runs.id IN (`+marks+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id      string
			c       board.RunControl
			stopAt  sql.NullInt64
			comment sql.NullInt64
		)
		if err := rows.Scan(&id, &c.Status, &stopAt, &c.StopRequestedBy, &comment); err != nil {
			return err
		}
		if stopAt.Valid {
			t := fromMillis(stopAt.Int64)
			c.StopRequestedAt = &t
		}
		if comment.Valid {
			c.LastHumanComment = fromMillis(comment.Int64)
		}
		out[id] = c
	}
	return rows.Err()
}

// padded is the least power of two at or above n.
func padded(n int) int {
	p := 1
	for p < n {
		p *= 2
	}
	return p
}
