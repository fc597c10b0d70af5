package postgres

import (
	"context"
	"fmt"
	"time"
)

// eventsChannel is the LISTEN/NOTIFY channel of the store's schema: every
// transaction that appends events notifies it, and Postgres delivers the
// notification when the transaction commits.
func (db *DB) eventsChannel() string {
	return fmt.Sprintf("bonsai_events_%08x", uint32(db.lockKey))
}

// EventsChanged returns a channel that receives when events were appended,
// by any process on any machine, until ctx is done, when it is closed. A
// reader following Events wakes on it instead of waiting for its next
// poll; it should still poll now and then, since a notification lost with
// a connection is not sent again. Several notifications may come as one.
func (db *DB) EventsChanged(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	go func() {
		defer close(ch)
		for ctx.Err() == nil {
			if err := db.listen(ctx, ch); err != nil && ctx.Err() == nil {
				// The connection failed: listen again after a pause;
				// the reader's poll covers the gap.
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}
	}()
	return ch
}

// listen holds one connection listening on the events channel and sends
// to ch, without blocking, for each notification, until an error.
func (db *DB) listen(ctx context.Context, ch chan<- struct{}) error {
	pooled, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection that listened goes back to no pool: its LISTEN must
	// not outlive this reader.
	conn := pooled.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+db.eventsChannel()); err != nil {
		return err
	}
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		select {
		case ch <- struct{}{}:
		default: // one is pending already
		}
	}
}
