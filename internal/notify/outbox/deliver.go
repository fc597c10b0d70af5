package outbox

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

// Deliver delivers the outbox's due notifications for at most bound; what
// is left is delivered by the next process. Secrets are scrubbed from the
// errors stored and logged: secrets gives the process's redactor, asked
// only when an error needs redacting (most deliveries find nothing to
// send). A message links the files of its event from base, the web UI's
// public address (config.json's forge.bonsaiURL; "" lists them without
// links). log may be nil.
func Deliver(ctx context.Context, s store.Store, secrets func(context.Context) *llm.Redactor, base string, log *slog.Logger, bound time.Duration) (notify.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	red := sync.OnceValue(func() *llm.Redactor { return secrets(ctx) })
	d := &notify.Deliverer{Outbox: s, Redact: func(msg string) string { return red().String(msg) }, Log: log, Files: s, BaseURL: base}
	return d.Deliver(ctx)
}

// Pending reports whether the outbox holds a notification waiting to be
// sent, due or not, with one read (true when it cannot tell): a beat with
// nothing to send then claims nothing, which would take the database's
// write lock and, beside the beat's own queries, a second connection.
func Pending(ctx context.Context, s store.Store) bool {
	pending, err := s.NotificationsPending(ctx)
	return err != nil || pending
}

// Every delivers notifications every interval until ctx ends: the loop of
// bonsai serve and up (base as for Deliver).
func Every(ctx context.Context, s store.Store, secrets func(context.Context) *llm.Redactor, base string, log *slog.Logger, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := Deliver(ctx, s, secrets, base, log, interval); err != nil && ctx.Err() == nil {
			log.Error("deliver notifications", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Redactor scrubs one channel's secrets.
func Redactor(c board.Channel) *llm.Redactor {
	return llm.NewRedactor(notify.Secrets(c)...)
}
