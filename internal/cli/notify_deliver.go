package cli

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/store"
)

// deliverNotifications delivers the outbox's due notifications for at
// most bound; what is left is delivered by the next process. Secrets are
// scrubbed from the errors stored and logged.
func deliverNotifications(ctx context.Context, a *app, s store.Store, log *slog.Logger, bound time.Duration) (notify.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	// The secrets are gathered only when an error needs redacting: most
	// deliveries find nothing to send.
	red := sync.OnceValue(func() *llm.Redactor { return secrets(ctx, a, s) })
	d := &notify.Deliverer{Outbox: s, Redact: func(msg string) string { return red().String(msg) }, Log: log}
	return d.Deliver(ctx)
}

// notificationsPending reports whether the outbox holds a notification
// waiting to be sent, due or not, with one read: a beat with nothing to
// send then claims nothing, which would take the database's write lock
// and, beside the beat's own queries, a second connection.
func notificationsPending(ctx context.Context, s store.Store) bool {
	pending, err := s.NotificationsPending(ctx)
	return err != nil || pending
}

// deliverEvery delivers notifications every interval until ctx ends: the
// loop of bonsai serve and up.
func deliverEvery(ctx context.Context, a *app, s store.Store, log *slog.Logger, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := deliverNotifications(ctx, a, s, log, interval); err != nil && ctx.Err() == nil {
			log.Error("deliver notifications", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// notifyRedactor scrubs one channel's secrets.
func notifyRedactor(c board.Channel) *llm.Redactor {
	return llm.NewRedactor(notify.Secrets(c)...)
}

// webNotifier is the notifications page's access to internal/notify.
type webNotifier struct{ a *app }

func (n webNotifier) Check(c board.Channel) error { return notify.Check(c) }

func (n webNotifier) Test(ctx context.Context, c board.Channel) error { return sendTest(ctx, n.a, c) }

func (n webNotifier) Target(c board.Channel) string { return notify.Target(c) }
