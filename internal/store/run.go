package store

import (
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// CheckFinish refuses the outcome r that FinishRun cannot record: a
// status that is not an end, negative tokens or cost, an unknown
// progress verdict.
func CheckFinish(r board.Run) error {
	if !r.Status.Valid() || r.Status == board.RunRunning {
		return board.Errorf(board.EINVALID, "a run finishes as completed, blocked, timeout, error, interrupted, budget_exceeded or stopped, not %q", r.Status)
	}
	if r.InputTokens < 0 || r.OutputTokens < 0 || r.CacheReadTokens < 0 || r.CacheWriteTokens < 0 || r.ReasoningTokens < 0 || r.CostUSD < 0 {
		return board.Errorf(board.EINVALID, "run tokens and cost cannot be negative")
	}
	if !r.Progress.Valid() {
		return board.Errorf(board.EINVALID, "unknown run progress %q; use none, made or nothing", r.Progress)
	}
	return nil
}

// Finished is the stored run with r's outcome at now: its status, tokens,
// cost, turns, error and progress; the other fields are kept. A run that is no
// longer running is an ECONFLICT error.
func Finished(stored, r board.Run, now time.Time) (board.Run, error) {
	if stored.Status != board.RunRunning {
		return stored, board.Errorf(board.ECONFLICT, "run %s already finished as %s", r.ID, stored.Status)
	}
	out := stored
	out.Status, out.FinishedAt, out.Error, out.Progress = r.Status, &now, r.Error, r.Progress
	out.InputTokens, out.OutputTokens = r.InputTokens, r.OutputTokens
	out.CacheReadTokens, out.CacheWriteTokens, out.CostUSD = r.CacheReadTokens, r.CacheWriteTokens, r.CostUSD
	out.ReasoningTokens, out.Turns = r.ReasoningTokens, r.Turns
	return out, nil
}

// RunFinishedData is the data of r's run.finished event.
func RunFinishedData(r board.Run) map[string]any {
	data := map[string]any{"runId": r.ID, "status": r.Status, "inputTokens": r.InputTokens,
		"outputTokens": r.OutputTokens, "costUsd": r.CostUSD}
	if r.Error != "" {
		data["error"] = r.Error
	}
	if r.Progress != "" {
		data["progress"] = r.Progress
	}
	return data
}
