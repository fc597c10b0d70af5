package cli

import (
	"context"
	"log/slog"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/notify/outbox"
	"github.com/bonsai-run/bonsai/internal/store"
)

// deliverNotifications delivers the outbox's due notifications for at
// most bound (outbox.Deliver), with the process's secrets redacted.
func deliverNotifications(ctx context.Context, a *app, s store.Store, log *slog.Logger, bound time.Duration) (notify.Result, error) {
	return outbox.Deliver(ctx, s, func(ctx context.Context) *llm.Redactor { return secrets(ctx, a, s) }, a.publicURL(), log, bound)
}

// publicURL is the web UI's address as people open it (config.json's
// forge.bonsaiURL), the root of the links notifications carry; "" when
// it is not set or config.json cannot be read.
func (a *app) publicURL() string {
	cfg, err := a.config()
	if err != nil {
		return ""
	}
	return cfg.Forge.BonsaiURL
}

// redactor is secrets as `bonsai notify deliver` takes it.
func (a *app) redactor(ctx context.Context, s store.Store) *llm.Redactor { return secrets(ctx, a, s) }

// notificationsPending reports whether the outbox holds a notification
// waiting to be sent (outbox.Pending).
func notificationsPending(ctx context.Context, s store.Store) bool { return outbox.Pending(ctx, s) }

// deliverEvery delivers notifications every interval until ctx ends: the
// loop of bonsai serve and up.
func deliverEvery(ctx context.Context, a *app, s store.Store, log *slog.Logger, interval time.Duration) {
	outbox.Every(ctx, s, func(ctx context.Context) *llm.Redactor { return secrets(ctx, a, s) }, a.publicURL(), log, interval)
}

// noteBlockers records why the beat's agents could not run
// (outbox.NoteBlockers); a beat that skipped everything notes nothing.
func noteBlockers(ctx context.Context, s store.Store, rep heartbeat.Report, log *slog.Logger) {
	if rep.Skipped {
		return
	}
	as := make([]outbox.Attempt, len(rep.Runs))
	for i, r := range rep.Runs {
		as[i] = outbox.Attempt{Ticket: r.Ticket, Skipped: r.Skipped}
	}
	outbox.NoteBlockers(ctx, s, as, log)
}

// webNotifier is the notifications page's access to internal/notify.
type webNotifier struct{ a *app }

func (n webNotifier) Check(c board.Channel) error { return notify.Check(c) }

func (n webNotifier) Test(ctx context.Context, c board.Channel) error {
	return outbox.SendTest(ctx, c, n.a.now())
}

func (n webNotifier) Target(c board.Channel) string { return notify.Target(c) }
