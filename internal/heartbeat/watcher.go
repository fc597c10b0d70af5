package heartbeat

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// controlWatcher reads the control rows of all the runs of one heartbeat
// that are working, in one query a tick (Controls.RunControls), and fans
// what it finds out to each run: a stop cancels the run, a new human
// comment steers its agent. Its loop runs while at least one run is
// watched. With wake set, a change signal of the store (Postgres's
// LISTEN/NOTIFY) makes it read at once instead of at the next tick, at
// most once per wakeGap.
type controlWatcher struct {
	store controlStore
	poll  time.Duration // 0: DefaultControlPoll
	wake  func(ctx context.Context) <-chan struct{}
	log   *slog.Logger

	mu   sync.Mutex
	runs map[string]*watchedRun
	end  func() // ends the loop and waits for it; nil while none runs
	// reads counts the queries the loop made (a test reads it).
	reads int
}

// wakeGap is the least time between two reads a change signal starts: a
// busy shared board signals every event, and a read a signal.
const wakeGap = 50 * time.Millisecond

// watchedRun is one watched run: where to send what the watcher reads.
type watchedRun struct {
	rc     runControl
	ctx    context.Context
	cancel context.CancelCauseFunc
	steer  *Steering

	// mu is held while the watcher acts on the run, and by unwatch, so
	// that nothing reaches the run once unwatch returned.
	mu     sync.Mutex
	gone   bool      // unwatched, or stopped
	seenAt time.Time // the newest human comment time already handled
}

// watch adds a run to the watcher until the returned function is called:
// a stop request cancels ctx's run through cancel with a *StoppedError,
// and new human comments go to steer and join rc.seen. The function
// returns once the watcher no longer acts on the run.
func (w *controlWatcher) watch(ctx context.Context, rc runControl, cancel context.CancelCauseFunc, steer *Steering) (unwatch func()) {
	r := &watchedRun{rc: rc, ctx: ctx, cancel: cancel, steer: steer}
	w.mu.Lock()
	if w.runs == nil {
		w.runs = map[string]*watchedRun{}
	}
	w.runs[rc.runID] = r
	if w.end == nil {
		loopCtx, end := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		w.end = func() { end(); <-done }
		go func() {
			defer close(done)
			w.loop(loopCtx)
		}()
	}
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		if w.runs[rc.runID] == r {
			delete(w.runs, rc.runID)
		}
		var end func()
		if len(w.runs) == 0 {
			end, w.end = w.end, nil
		}
		w.mu.Unlock()
		if end != nil {
			end() // the last run: the loop ends before unwatch returns
		}
		r.mu.Lock()
		r.gone = true
		r.mu.Unlock()
	}
}

// loop reads the watched runs' control every poll (or on a wake) until
// ctx ends: when the last run is unwatched.
func (w *controlWatcher) loop(ctx context.Context) {
	poll := w.poll
	if poll <= 0 {
		poll = DefaultControlPoll
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	var wake <-chan struct{}
	if w.wake != nil {
		wake = w.wake(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case _, ok := <-wake:
			if !ok {
				wake = nil // the signal ended; the ticks go on
				continue
			}
			if !sleep(ctx, wakeGap) {
				return
			}
		}
		w.read(ctx)
	}
}

// sleep waits d or until ctx ends, reporting whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// read reads the control of every watched run in one query and hands
// each run its row. A failed read is logged and retried at the next tick.
func (w *controlWatcher) read(ctx context.Context) {
	w.mu.Lock()
	runs := make([]*watchedRun, 0, len(w.runs))
	ids := make([]string, 0, len(w.runs))
	for id, r := range w.runs {
		runs, ids = append(runs, r), append(ids, id)
	}
	if len(ids) > 0 {
		w.reads++
	}
	w.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	cs, err := w.store.RunControls(ctx, ids)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("read run control", "runs", len(ids), "err", err)
		}
		return
	}
	for _, r := range runs {
		c, ok := cs[r.rc.runID]
		r.handle(c, ok)
	}
}

// handle acts on the run's control row c (found says whether it was):
// a stop request cancels the run, a newer human comment steers it.
func (r *watchedRun) handle(c board.RunControl, found bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.gone || r.ctx.Err() != nil:
	case !found:
		r.rc.log.Warn("read run control", "err", "the run's record is missing")
	case c.StopRequestedAt != nil:
		r.rc.log.Info("stop requested", "by", c.StopRequestedBy)
		r.cancel(&StoppedError{By: c.StopRequestedBy})
		r.gone = true
	case c.LastHumanComment.After(r.seenAt):
		if r.rc.steer(r.ctx, r.steer) {
			r.seenAt = c.LastHumanComment
		}
	}
}

// readCount returns how many reads the watcher made.
func (w *controlWatcher) readCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reads
}
