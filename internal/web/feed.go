package web

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// ringSize is how many recent events the feed keeps in memory for the
// streams; a stream further behind reads the store.
const ringSize = 4096

// pageSize is how many events one query of the log reads.
const pageSize = 500

// item is one event with, for ticket events, the ticket as it was when the
// feed read the event, so that a hundred open boards cost one ticket query,
// not a hundred. The ticket is slim (no description, plan or criteria): the
// ring keeps thousands of items.
type item struct {
	Event  board.Event
	Ticket *board.Ticket
}

// feed follows the store's event log with a cursor: one indexed query per
// poll (id > cursor), whoever wrote the events — this process or a
// heartbeat in another one. Streams wait on wake, which is closed and
// replaced whenever new events arrive.
type feed struct {
	store Store
	runs  *runIndex
	every time.Duration
	log   *slog.Logger
	// onItems, when set, sees every batch of items before the streams do.
	onItems func([]item)
	// changed, when set, wakes the loop as soon as events are appended
	// (Options.EventsChanged), before its next tick.
	changed func(ctx context.Context) <-chan struct{}

	pollMu sync.Mutex // one poll at a time: the loop and page loads both poll

	mu     sync.Mutex
	ring   []item
	base   int64 // the cursor before ring[0]: events after it are all in the ring
	last   int64 // the newest event read
	wake   chan struct{}
	primed bool // the first read of the log is done; load tickets from now on
}

func newFeed(s Store, runs *runIndex, every time.Duration, log *slog.Logger) *feed {
	return &feed{store: s, runs: runs, every: every, log: log, wake: make(chan struct{})}
}

// run polls until ctx is done, at every tick and whenever changed says
// events were appended. A failed poll is logged and retried on the next
// tick: the database may be busy for a moment.
func (f *feed) run(ctx context.Context) error {
	t := time.NewTicker(f.every)
	defer t.Stop()
	var changed <-chan struct{}
	if f.changed != nil {
		changed = f.changed(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case _, ok := <-changed:
			if !ok {
				changed = nil // closed: the ticks alone
				continue
			}
		case <-t.C:
		}
		if err := f.poll(ctx); err != nil && !errors.Is(err, context.Canceled) {
			f.log.Warn("follow events", "err", err)
		}
	}
}

// poll reads every event after the cursor.
func (f *feed) poll(ctx context.Context) error {
	f.pollMu.Lock()
	defer f.pollMu.Unlock()
	for {
		f.mu.Lock()
		after, primed := f.last, f.primed
		f.mu.Unlock()
		es, err := f.store.Events(ctx, after, pageSize)
		if err != nil {
			return err
		}
		items := make([]item, len(es))
		for i, e := range es {
			f.runs.apply(e)
			items[i].Event = e
		}
		if primed {
			f.loadTickets(ctx, items)
		}
		if f.onItems != nil {
			f.onItems(items)
		}
		f.publish(items)
		if len(es) < pageSize {
			f.mu.Lock()
			f.primed = true
			f.mu.Unlock()
			return nil
		}
	}
}

// loadTickets attaches to each ticket event the ticket as it is now, reading
// each ticket once.
func (f *feed) loadTickets(ctx context.Context, items []item) {
	loaded := map[string]*board.Ticket{}
	for i := range items {
		id := items[i].Event.TicketID
		if id == "" {
			continue
		}
		t, ok := loaded[id]
		if !ok {
			if ref, found := f.runs.ref(id); found {
				if tk, err := f.store.Ticket(ctx, ref); err == nil {
					tk = slim(tk)
					t = &tk
				}
			}
			loaded[id] = t
		}
		items[i].Ticket = t
	}
}

// publish appends items to the ring and wakes the streams.
func (f *feed) publish(items []item) {
	if len(items) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.ring) == 0 {
		f.base = f.last
	}
	f.ring = append(f.ring, items...)
	if over := len(f.ring) - ringSize; over > 0 {
		f.base = f.ring[over-1].Event.ID
		f.ring = append([]item(nil), f.ring[over:]...)
	}
	f.last = items[len(items)-1].Event.ID
	close(f.wake)
	f.wake = make(chan struct{})
}

// since returns the items after cursor and a channel closed when more
// arrive. ok is false when the cursor is older than the ring: the caller
// reads those events from the store.
func (f *feed) since(cursor int64) (items []item, wake <-chan struct{}, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cursor >= f.last {
		return nil, f.wake, true
	}
	if cursor < f.base || len(f.ring) == 0 {
		return nil, f.wake, false
	}
	i := len(f.ring)
	for i > 0 && f.ring[i-1].Event.ID > cursor {
		i--
	}
	return append([]item(nil), f.ring[i:]...), f.wake, true
}

// cursor returns the ID of the newest event read.
func (f *feed) cursor() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}
