package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// RequestStop asks the running run of the ticket ref to stop: it sets the
// run's stop_requested_at (migration 0013) and records a
// run.stop_requested event, in one transaction. The process running the
// run polls RunControl and stops it. A ticket with no running run is an
// ECONFLICT error naming how its last run ended; asking twice is not an
// error and keeps the first request.
func (db *DB) RequestStop(ctx context.Context, ref board.Ref, by string) (board.Run, error) {
	var out board.Run
	err := db.writeTicket(ctx, ref, func(tx *tx, t board.Ticket) error {
		r, err := scanRun(tx.queryRowContext(ctx, `SELECT `+runColumns+` FROM runs
			WHERE ticket_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1`, t.ID))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return board.Errorf(board.ECONFLICT, "ticket %s has never run; there is nothing to stop", ref)
		case err != nil:
			return err
		case r.Status != board.RunRunning:
			return board.Errorf(board.ECONFLICT, "ticket %s has no running run to stop: its last run finished as %s", ref, r.Status)
		}
		out = r
		res, err := tx.exec(`UPDATE runs SET stop_requested_at = ?, stop_requested_by = ?
			WHERE id = ? AND stop_requested_at IS NULL`, tx.nowMs(), by, r.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // already asked
		}
		return tx.event(board.EventRunStopRequested, r.ProjectID, r.TicketID, board.Human,
			map[string]any{"ref": ref.String(), "runId": r.ID, "by": by})
	})
	return result(out, wrap(err, "stop the run of %s", ref))
}

// RunControl returns what the process running run id polls: its status,
// whether a stop was asked for, and when the newest unresolved human
// comment on its ticket was posted. It reads one run by its primary key
// and one ticket by its: cheap enough to poll twice a second per run.
func (db *DB) RunControl(ctx context.Context, id string) (board.RunControl, error) {
	var (
		c       board.RunControl
		stopAt  sql.NullInt64
		comment sql.NullInt64
	)
	err := db.queryRowContext(ctx, `SELECT runs.status, runs.stop_requested_at, runs.stop_requested_by,
		tickets.last_human_comment_at FROM runs JOIN tickets ON tickets.id = runs.ticket_id WHERE runs.id = ?`, id).
		Scan(&c.Status, &stopAt, &c.StopRequestedBy, &comment)
	if errors.Is(err, sql.ErrNoRows) {
		return c, board.Errorf(board.ENOTFOUND, "run %q not found", id)
	}
	if err != nil {
		return c, fmt.Errorf("read the control of run %s: %w", id, err)
	}
	if stopAt.Valid {
		t := fromMillis(stopAt.Int64)
		c.StopRequestedAt = &t
	}
	if comment.Valid {
		c.LastHumanComment = fromMillis(comment.Int64)
	}
	return c, nil
}
