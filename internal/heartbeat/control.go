package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Run control (docs/heartbeat.md, "Run control"): while runs work, one
// watcher of their heartbeat (controlWatcher, watcher.go) reads the
// control rows of all of them in one query every Options.ControlPoll. A
// stop request (written by the web server or `bonsai ticket stop`, which
// are other processes) cancels its run, which finishes as stopped; a
// person's comment posted meanwhile is handed to the runner, which steers
// the agent with it before its next model request.

// DefaultControlPoll is how often the running runs' control rows are read
// when Options.ControlPoll is 0.
const DefaultControlPoll = 500 * time.Millisecond

// Controls is what the run-control watcher reads.
type Controls interface {
	// RunControl returns a run's status, stop request and newest
	// unresolved human comment time.
	RunControl(ctx context.Context, runID string) (board.RunControl, error)
	// RunControls returns RunControl's answer for each run of runIDs
	// that exists, in one query.
	RunControls(ctx context.Context, runIDs []string) (map[string]board.RunControl, error)
}

// StoppedError is the cause of a run's context when a person stopped it.
type StoppedError struct {
	// By names who asked.
	By string
}

func (e *StoppedError) Error() string {
	if e.By == "" {
		return "stopped by a person"
	}
	return "stopped by " + e.By
}

// controlStore reads the runs' control rows and their tickets' threads.
type controlStore interface {
	Controls
	Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
}

// runControl is what the watcher knows of one run while it works.
type runControl struct {
	store controlStore
	runID string
	ref   board.Ref
	// seen are the human comments the agent saw; steering adds to them.
	seen *seenComments
	log  *slog.Logger
}

// steer hands the ticket's human comments the agent has not seen to the
// runner. It reports whether they were handled (or there were none).
func (rc runControl) steer(ctx context.Context, steer *Steering) bool {
	comments, err := rc.store.Comments(ctx, rc.ref)
	if err != nil {
		rc.log.Warn("read comments to steer the agent", "err", err)
		return false
	}
	var fresh []board.Comment
	for _, c := range comments {
		if c.AuthorType == board.Human && !c.Resolved && !rc.seen.has(c.ID) {
			fresh = append(fresh, c)
		}
	}
	if len(fresh) == 0 {
		return true
	}
	if !steer.Deliver(fresh) {
		return false
	}
	for _, c := range fresh {
		rc.seen.add(c.ID)
	}
	rc.log.Info("steered the agent with new comments", "count", len(fresh))
	return true
}

// stopped returns the stop that ended ctx, if a person stopped it.
func stopped(ctx context.Context) (*StoppedError, bool) {
	var s *StoppedError
	ok := errors.As(context.Cause(ctx), &s)
	return s, ok
}

// stoppedText is a stopped run's error text.
func stoppedText(s *StoppedError, d time.Duration) string {
	return fmt.Sprintf("%s after %s; the transcript is kept and the next beat resumes it", s.Error(), d.Round(time.Second))
}
