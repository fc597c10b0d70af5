package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// runColumns are read from "FROM runs" (never aliased): the project slug and
// ticket number come along, so a run can name its ticket. The number is
// the run's own copy (migration 0006); the slug is looked up among the
// projects, a few pages however big the board.
const runColumns = `id, ticket_id, project_id, task, status, session_key, started_at, finished_at,
	input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, error, worker_id,
	(SELECT slug FROM projects WHERE projects.id = runs.project_id), ticket_number, progress, reasoning_tokens,
	model, engine, turns`

func scanRun(s scanner) (board.Run, error) {
	var r board.Run
	err := s.Scan(&r.ID, &r.TicketID, &r.ProjectID, &r.Task, &r.Status, &r.SessionKey, ms{&r.StartedAt}, msPtr{&r.FinishedAt},
		&r.InputTokens, &r.OutputTokens, &r.CacheReadTokens, &r.CacheWriteTokens, &r.CostUSD, &r.Error, &r.WorkerID,
		&r.ProjectSlug, &r.TicketNumber, &r.Progress, &r.ReasoningTokens, &r.Model, &r.Engine, &r.Turns)
	return r, err
}

// StartRun records a run of r.Task on ticket r.TicketID in status "running"
// and returns it with its ID, project, start time and, unless given, the
// ticket's session key. Starting a run counts as an update of the ticket, so
// the pick policy's "least recently updated first" rotates through
// in-progress tickets.
func (db *DB) StartRun(ctx context.Context, r board.Run) (board.Run, error) {
	if err := r.Task.Check(); err != nil {
		return board.Run{}, err
	}
	err := db.write(ctx, func(tx *tx) error {
		t, err := getTicketByID(ctx, tx, r.TicketID)
		if err == nil {
			r, err = r.Start(t, db.newID(), tx.now)
		}
		if err != nil {
			return err
		}
		_, err = tx.exec(`INSERT INTO runs (id, ticket_id, ticket_number, project_id, task, status, session_key, started_at, worker_id, model, engine)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.TicketID, t.Number, r.ProjectID, string(r.Task), string(r.Status), r.SessionKey, tx.nowMs(), r.WorkerID, r.Model, r.Engine)
		if err != nil {
			return err
		}
		if _, err := tx.exec(`UPDATE tickets SET updated_at = ? WHERE id = ?`, tx.nowMs(), t.ID); err != nil {
			return err
		}
		return tx.ticketEvent(board.EventRunStarted, t, board.System, map[string]any{"runId": r.ID, "task": r.Task, "workerId": r.WorkerID})
	})
	return result(r, wrap(err, "start run"))
}

// FinishRun records the outcome of the running run r.ID: its final status,
// tokens, cost, turns, error text and progress verdict. The other fields are kept as stored. A run
// that already finished (or was interrupted) is an ECONFLICT error.
func (db *DB) FinishRun(ctx context.Context, r board.Run) (board.Run, error) {
	if err := store.CheckFinish(r); err != nil {
		return board.Run{}, err
	}
	out, err := writing(ctx, db, true, func(tx *tx) (board.Run, error) {
		out, err := one(ctx, tx, scanRun, func() error { return board.Errorf(board.ENOTFOUND, "run %q not found", r.ID) },
			`SELECT `+runColumns+` FROM runs WHERE id = ?`, r.ID)
		if err == nil {
			out, err = store.Finished(out, r, tx.now)
		}
		if err != nil {
			return out, err
		}
		_, err = tx.exec(`UPDATE runs SET status = ?, finished_at = ?, input_tokens = ?, output_tokens = ?,
			cache_read_tokens = ?, cache_write_tokens = ?, cost_usd = ?, error = ?, progress = ?, reasoning_tokens = ?, turns = ? WHERE id = ?`,
			string(out.Status), tx.nowMs(), out.InputTokens, out.OutputTokens, out.CacheReadTokens,
			out.CacheWriteTokens, out.CostUSD, out.Error, string(out.Progress), out.ReasoningTokens, out.Turns, out.ID)
		if err != nil {
			return out, err
		}
		return out, tx.runFinished(out)
	})
	return out, wrap(err, "finish run %s", r.ID)
}

// runFinished records the run.finished event of r.
func (tx *tx) runFinished(r board.Run) error {
	return tx.event(board.EventRunFinished, r.ProjectID, r.TicketID, board.System, store.RunFinishedData(r))
}

// Runs lists a ticket's runs, newest first.
func (db *DB) Runs(ctx context.Context, ref board.Ref) ([]board.Run, error) {
	return ofTicket(ctx, db, ref, scanRun, "runs", `SELECT `+runColumns+` FROM runs WHERE ticket_id = ?
		ORDER BY started_at DESC, rowid DESC`)
}

// RunningRunsQuery is the query of RunningRuns, exported for the engines'
// query-plan tests. It says status = 'running' literally, to match
// runs_running.
const RunningRunsQuery = `SELECT ` + runColumns + ` FROM runs WHERE status = 'running'
	ORDER BY started_at DESC, rowid DESC`

// RunningRuns lists the runs still running, newest first, from the partial
// index runs_running: however many finished runs there are, it reads only
// the running ones.
func (db *DB) RunningRuns(ctx context.Context) ([]board.Run, error) {
	rs, err := list(ctx, db, scanRun, RunningRunsQuery)
	return result(rs, wrap(err, "list running runs"))
}

// DefaultRecentRuns is how many runs RecentRuns returns for a limit of 0.
const DefaultRecentRuns = 20

// RecentRuns lists the newest runs across all projects; a limit of 0 or less
// means DefaultRecentRuns.
func (db *DB) RecentRuns(ctx context.Context, limit int) ([]board.Run, error) {
	if limit <= 0 {
		limit = DefaultRecentRuns
	}
	rs, err := list(ctx, db, scanRun, `SELECT `+runColumns+` FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?`, limit)
	return result(rs, wrap(err, "list recent runs"))
}

// interruptedError is the error text of a run InterruptRuns marked.
const interruptedError = "the heartbeat running it stopped before the run finished"

// InterruptRuns marks every run still "running" as "interrupted", with a
// run.finished event each, and returns how many it marked.
func (db *DB) InterruptRuns(ctx context.Context) (int, error) {
	running, err := writing(ctx, db, true, func(tx *tx) ([]board.Run, error) {
		return tx.interruptRuns(interruptedError, `SELECT `+runColumns+` FROM runs WHERE status = 'running' ORDER BY started_at, rowid`)
	})
	return len(running), wrap(err, "interrupt runs")
}

// interruptRuns marks the running runs query selects "interrupted" with
// the error errText, each with its run.finished event, and returns them.
func (tx *tx) interruptRuns(errText, query string, args ...any) ([]board.Run, error) {
	runs, err := list(tx.ctx, tx, scanRun, query, args...)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		_, err := tx.exec(`UPDATE runs SET status = 'interrupted', finished_at = ?, error = ? WHERE id = ?`,
			tx.nowMs(), errText, r.ID)
		if err != nil {
			return nil, err
		}
		now := tx.now
		r.Status, r.FinishedAt, r.Error = board.RunInterrupted, &now, errText
		if err := tx.runFinished(r); err != nil {
			return nil, err
		}
	}
	return runs, nil
}

// RequestStop asks the running run of the ticket ref to stop: it sets the
// run's stop_requested_at (migration 0013) and records a
// run.stop_requested event, in one transaction. The process running the
// run polls RunControl and stops it. A ticket with no running run is an
// ECONFLICT error naming how its last run ended; asking twice is not an
// error and keeps the first request.
func (db *DB) RequestStop(ctx context.Context, ref board.Ref, by string) (board.Run, error) {
	return onTicket(ctx, db, ref, "stop the run of", func(tx *tx, t board.Ticket) (board.Run, error) {
		r, err := scanRun(tx.queryRowContext(ctx, `SELECT `+runColumns+` FROM runs
			WHERE ticket_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1`, t.ID))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return r, board.Errorf(board.ECONFLICT, "ticket %s has never run; there is nothing to stop", ref)
		case err != nil:
			return r, err
		case r.Status != board.RunRunning:
			return r, board.Errorf(board.ECONFLICT, "ticket %s has no running run to stop: its last run finished as %s", ref, r.Status)
		}
		res, err := tx.exec(`UPDATE runs SET stop_requested_at = ?, stop_requested_by = ?
			WHERE id = ? AND stop_requested_at IS NULL`, tx.nowMs(), by, r.ID)
		if err != nil {
			return r, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return r, nil // already asked
		}
		return r, tx.ticketEvent(board.EventRunStopRequested, t, board.Human, map[string]any{"runId": r.ID, "by": by})
	})
}
