package web

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

func items(from, to int64) []item {
	var out []item
	for id := from; id <= to; id++ {
		out = append(out, item{Event: board.Event{ID: id}})
	}
	return out
}

func TestFeed_RingAndCursor(t *testing.T) {
	t.Parallel()
	f := newFeed(nil, newRunIndex(), 0, nil)
	got, wake, ok := f.since(0)
	if !ok || len(got) != 0 {
		t.Fatalf("empty feed: %v %v", got, ok)
	}
	f.publish(items(1, 10))
	select {
	case <-wake:
	default:
		t.Fatal("publish did not wake the waiters")
	}
	if got, _, ok = f.since(4); !ok || len(got) != 6 || got[0].Event.ID != 5 {
		t.Fatalf("since 4: %d items from %d, ok %v", len(got), got[0].Event.ID, ok)
	}
	if got, _, ok = f.since(10); !ok || len(got) != 0 {
		t.Fatalf("since the end: %v", got)
	}
	// Past the ring's size the oldest are dropped: a cursor before them
	// must read the store.
	f.publish(items(11, ringSize+20))
	if _, _, ok = f.since(5); ok {
		t.Fatal("a cursor older than the ring was served from it")
	}
	if got, _, ok = f.since(f.base); !ok || len(got) != ringSize || got[0].Event.ID != f.base+1 {
		t.Fatalf("since the ring's base: %d items, ok %v", len(got), ok)
	}
	if f.cursor() != ringSize+20 {
		t.Fatalf("cursor %d", f.cursor())
	}
}

// TestFeed_WakesOnChange: with a poll interval of an hour, a signal that
// events were appended makes the feed read the log at once.
func TestFeed_WakesOnChange(t *testing.T) {
	t.Parallel()
	s := &countingEvents{polled: make(chan struct{}, 10)}
	f := newFeed(s, newRunIndex(), time.Hour, slog.New(slog.DiscardHandler))
	changed := make(chan struct{})
	f.changed = func(context.Context) <-chan struct{} { return changed }
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go f.run(ctx)
	changed <- struct{}{}
	select {
	case <-s.polled:
	case <-time.After(30 * time.Second):
		t.Fatal("the feed did not read the log when told events were appended")
	}
}

// countingEvents is a Store whose Events says when it is read.
type countingEvents struct {
	Store
	polled chan struct{}
}

func (c *countingEvents) Events(context.Context, int64, int) ([]board.Event, error) {
	c.polled <- struct{}{}
	return nil, nil
}
