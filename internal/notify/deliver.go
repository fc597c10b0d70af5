package notify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Outbox is what delivery needs of the store: claim due notifications
// under a lease and settle each.
type Outbox interface {
	ClaimNotifications(ctx context.Context, owner string, lease time.Duration, limit int) ([]board.Delivery, error)
	SettleNotification(ctx context.Context, id int64, owner string, o board.Outcome) error
}

// Delivery defaults.
const (
	// MaxAttempts is how many times a notification is tried before it is
	// marked failed.
	MaxAttempts = 8
	// FirstRetry is the wait after the first failed attempt; each further
	// failure doubles it, up to MaxRetry.
	FirstRetry = 30 * time.Second
	MaxRetry   = time.Hour
	// batch is how many notifications one claim takes.
	batch = 16
	// parallel is how many are sent at once.
	parallel = 4
)

// Deliverer drains the outbox.
type Deliverer struct {
	Outbox Outbox
	// Options are the channels' options; their Timeout bounds each
	// attempt, and the lease is twice that.
	Options Options
	// Now is the clock the retry times are computed from; nil means
	// time.Now. It must agree with the store's.
	Now func() time.Time
	// Redact scrubs secrets from error text before it is stored or
	// logged; nil keeps the text.
	Redact func(string) string
	// Log receives one line per failed attempt; nil discards.
	Log *slog.Logger
	// Files, when set, finds the files that came with a notification's
	// event (the comment, the move's evidence), which its message links
	// (Message.WithAttachments); nil links none.
	Files EventFiles
	// BaseURL is the web UI's public address (config.json's
	// forge.bonsaiURL), the root of the files' links; "" lists them
	// without links.
	BaseURL string
}

// EventFiles is what linking a notification's files needs of the store
// (store.NotifyAttachments).
type EventFiles interface {
	EventAttachments(ctx context.Context, eventID int64) ([]board.Attachment, error)
}

// Result counts what one Deliver call did.
type Result struct {
	Sent, Retry, Failed int
}

// Deliver sends every due notification, a batch at a time, until none is
// due or ctx ends, and returns what it did. A failed attempt is scheduled
// again with backoff, or marked failed when it is permanent or the
// attempts are used up; it is never an error of Deliver, which fails only
// when the store does.
func (d *Deliverer) Deliver(ctx context.Context) (Result, error) {
	var res Result
	owner := newOwner()
	lease := 2*d.Options.timeout() + 10*time.Second
	for ctx.Err() == nil {
		ds, err := d.Outbox.ClaimNotifications(ctx, owner, lease, batch)
		if err != nil {
			return res, err
		}
		if len(ds) == 0 {
			break
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		var settleErr error
		sem := make(chan struct{}, parallel)
		for _, dl := range ds {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				out := d.attempt(ctx, dl)
				// Settle even when ctx ended, so a sent message is not
				// sent again; the write is short.
				err := d.Outbox.SettleNotification(context.WithoutCancel(ctx), dl.ID, owner, out)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil && board.ErrorCode(err) != board.ECONFLICT:
					settleErr = err
				case out.Sent:
					res.Sent++
				case !out.RetryAt.IsZero():
					res.Retry++
				default:
					res.Failed++
				}
			}()
		}
		wg.Wait()
		if settleErr != nil {
			return res, settleErr
		}
	}
	return res, nil
}

// attempt sends one notification and says how it ended.
func (d *Deliverer) attempt(ctx context.Context, dl board.Delivery) board.Outcome {
	s, err := New(dl.Channel, d.Options)
	if err == nil {
		if err = s.Send(ctx, d.message(ctx, dl.Notification)); err == nil {
			return board.Outcome{Sent: true}
		}
	}
	text := err.Error()
	if d.Redact != nil {
		text = d.Redact(text)
	}
	out := board.Outcome{Err: text}
	if !IsPermanent(err) && dl.Attempts < MaxAttempts && ctx.Err() == nil {
		out.RetryAt = d.now().Add(Backoff(dl.Attempts))
	} else if ctx.Err() != nil && !IsPermanent(err) {
		// The process is stopping: try again at once next time.
		out.RetryAt = d.now()
	}
	if d.Log != nil {
		d.Log.Warn("notification not delivered", "id", dl.ID, "channel", dl.Channel.Name, "attempt", dl.Attempts,
			"err", text, "retry", !out.RetryAt.IsZero())
	}
	return out
}

// message is n's message, linking the files of its event; a failure to
// find them is logged and the message goes without.
func (d *Deliverer) message(ctx context.Context, n board.Notification) Message {
	m := NewMessage(n)
	if d.Files == nil || n.EventID == 0 || n.Ticket == "" {
		return m
	}
	as, err := d.Files.EventAttachments(ctx, n.EventID)
	if err != nil {
		if d.Log != nil {
			d.Log.Warn("notification: the files of its event not found", "id", n.ID, "event", n.EventID, "err", err)
		}
		return m
	}
	return m.WithAttachments(d.BaseURL, as)
}

func (d *Deliverer) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// Backoff is the wait after the attempt-th failed attempt: FirstRetry,
// doubled for each earlier failure, at most MaxRetry.
func Backoff(attempt int) time.Duration {
	w := FirstRetry
	for i := 1; i < attempt && w < MaxRetry; i++ {
		w *= 2
	}
	return min(w, MaxRetry)
}

// newOwner names this delivery pass in leases: the process and a random
// part, so two passes never share a lease.
func newOwner() string {
	b := make([]byte, 6)
	rand.Read(b)
	return fmt.Sprintf("pid%d-%s", os.Getpid(), hex.EncodeToString(b))
}
