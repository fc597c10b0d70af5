package heartbeat

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// countingControls counts the control queries a watcher makes of a real
// store, and the run IDs each asked for.
type countingControls struct {
	controlStore
	one, many atomic.Int64
	mu        sync.Mutex
	asked     []int // the number of IDs of each RunControls call
}

func (c *countingControls) RunControl(ctx context.Context, id string) (board.RunControl, error) {
	c.one.Add(1)
	return c.controlStore.RunControl(ctx, id)
}

func (c *countingControls) RunControls(ctx context.Context, ids []string) (map[string]board.RunControl, error) {
	c.many.Add(1)
	c.mu.Lock()
	c.asked = append(c.asked, len(ids))
	c.mu.Unlock()
	return c.controlStore.RunControls(ctx, ids)
}

// watchedTicket is one run the test watches.
type watchedTicket struct {
	ticket board.Ticket
	ctx    context.Context
	steer  *Steering
	got    chan []board.Comment
	stop   func()
}

// TestControlWatcher_ManyRunsOneQueryATick watches 24 runs with one
// watcher: each of its reads is one query naming every run, none reads a
// single run's control; a stop reaches its run alone and a comment its
// agent alone; and once the last run is unwatched the watcher reads no
// more.
func TestControlWatcher_ManyRunsOneQueryATick(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	st := &countingControls{controlStore: u.db}
	w := &controlWatcher{store: st, poll: 5 * time.Millisecond, log: u.log}
	const n = 24
	runs := make([]*watchedTicket, n)
	for i := range runs {
		tk, err := u.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: fmt.Sprintf("t%d", i), State: board.InProgress}, board.Human)
		if err != nil {
			t.Fatal(err)
		}
		r, err := u.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskImplement, WorkerID: "w"})
		if err != nil {
			t.Fatal(err)
		}
		runCtx, cancel := context.WithCancelCause(ctx)
		t.Cleanup(func() { cancel(nil) })
		wt := &watchedTicket{ticket: tk, ctx: runCtx, steer: &Steering{}, got: make(chan []board.Comment, 1)}
		wt.steer.Attach(func(cs []board.Comment) { wt.got <- cs })
		rc := runControl{store: st, runID: r.ID, ref: tk.Ref(), seen: &seenComments{}, log: u.log}
		wt.stop = w.watch(runCtx, rc, cancel, wt.steer)
		runs[i] = wt
	}
	if _, err := u.db.RequestStop(ctx, runs[3].ticket.Ref(), "ana"); err != nil {
		t.Fatal(err)
	}
	if _, err := u.db.AddComment(ctx, runs[7].ticket.Ref(), board.Comment{AuthorType: board.Human, AuthorName: "ana", Kind: board.KindNote, Content: "use v2"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-runs[3].ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the stop request did not cancel its run within a minute")
	}
	if s, ok := stopped(runs[3].ctx); !ok || s.By != "ana" {
		t.Errorf("the stopped run's cause is %v, want stopped by ana", context.Cause(runs[3].ctx))
	}
	select {
	case cs := <-runs[7].got:
		if len(cs) != 1 || cs[0].Content != "use v2" {
			t.Errorf("steered with %+v, want the one new comment", cs)
		}
	case <-time.After(time.Minute):
		t.Fatal("the comment did not reach its run's agent within a minute")
	}
	for i, r := range runs {
		if i != 3 && r.ctx.Err() != nil {
			t.Errorf("run %d ended (%v); only run 3 was stopped", i, context.Cause(r.ctx))
		}
		if i != 7 && len(r.got) != 0 {
			t.Errorf("run %d was steered; only run 7 had a new comment", i)
		}
	}
	for _, r := range runs {
		r.stop()
	}
	reads := w.readCount()
	if st.one.Load() != 0 || st.many.Load() != int64(reads) || reads == 0 {
		t.Errorf("%d reads made %d RunControls and %d RunControl queries, want one RunControls a read", reads, st.many.Load(), st.one.Load())
	}
	st.mu.Lock()
	// The watcher reads one read at a time: from the first that named
	// every run (those before raced with the runs being added), each does.
	settled := len(st.asked)
	for i, k := range st.asked {
		if k == n {
			settled = i
			break
		}
	}
	if settled == len(st.asked) {
		t.Errorf("no read asked for all %d runs: %v", n, st.asked)
	}
	for i, k := range st.asked[settled:] {
		if k != n {
			t.Errorf("read %d asked for %d runs, want all %d", settled+i, k, n)
		}
	}
	st.mu.Unlock()
	time.Sleep(50 * time.Millisecond) // ten polls
	if after := w.readCount(); after != reads {
		t.Errorf("the watcher read %d times after the last run was unwatched, want none", after-reads)
	}
}

// TestControlWatcher_WakesOnTheStoresSignal reads at once on the store's
// change signal: with an hour between polls, a stop still reaches its run,
// and the signal's channel is opened with the watcher's loop and closed
// with it.
func TestControlWatcher_WakesOnTheStoresSignal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	run := u.startRun(t)
	signal := make(chan struct{}, 1)
	loopDone := make(chan struct{})
	wake := func(ctx context.Context) <-chan struct{} {
		go func() { <-ctx.Done(); close(loopDone) }()
		return signal
	}
	w := &controlWatcher{store: u.db, poll: time.Hour, wake: wake, log: u.log}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rc := runControl{store: u.db, runID: run.ID, ref: u.ticket.Ref(), seen: &seenComments{}, log: u.log}
	unwatch := w.watch(runCtx, rc, cancel, &Steering{})
	if _, err := u.db.RequestStop(ctx, u.ticket.Ref(), "ana"); err != nil {
		t.Fatal(err)
	}
	signal <- struct{}{}
	select {
	case <-runCtx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the store's signal did not make the watcher read the stop within a minute")
	}
	if s, ok := stopped(runCtx); !ok || s.By != "ana" {
		t.Errorf("the run's cause is %v, want stopped by ana", context.Cause(runCtx))
	}
	unwatch()
	select {
	case <-loopDone:
	case <-time.After(time.Minute):
		t.Fatal("the watcher's loop did not end with its last run")
	}
}
