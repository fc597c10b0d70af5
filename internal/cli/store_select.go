package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/doctor"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/notify/outbox"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
)

// envDatabaseURL names a Postgres database to keep the board in; it
// overrides config.json's store.url (docs/postgres.md).
const envDatabaseURL = "BONSAI_DATABASE_URL"

// storeURL returns the Postgres URL the board lives at: the environment's,
// else store.url; "" means the SQLite file in the data directory.
func (a *app) storeURL() (string, error) {
	if u := a.getenv(envDatabaseURL); u != "" {
		return u, nil
	}
	c, err := a.config()
	if err != nil {
		return "", err
	}
	return c.Store.URL, nil
}

// openPostgres opens the board in the Postgres database at u. Its errors
// name the server, never the password.
func openPostgres(ctx context.Context, u string) (store.Store, error) {
	return postgres.Open(ctx, u)
}

// sharedLeases returns the store's leases when the board is on Postgres,
// where machines share it and each run holds its ticket's lease; nil on
// SQLite, one machine's board, where the lock file does.
func (a *app) sharedLeases(st store.Store) (heartbeat.Leaser, error) {
	u, err := a.storeURL()
	if err != nil || u == "" {
		return nil, err
	}
	return st, nil
}

// storeCheck is doctor's database check: the Postgres board's when the
// board is there (pgCheck), else bonsai.db's (databaseCheck).
func (a *app) storeCheck(ctx context.Context, d config.Dir) (doctor.Check, bool) {
	u, err := a.storeURL()
	if err != nil || u == "" {
		return databaseCheck(ctx, d)
	}
	return pgCheck(ctx, u)
}

// pgCheck connects to the Postgres board and reads its schema version,
// changing nothing; current reports a board that opens without a change.
func pgCheck(ctx context.Context, u string) (doctor.Check, bool) {
	h, err := postgres.Check(ctx, u)
	return doctor.Postgres(postgres.Redact(u), doctor.Schema{Version: h.Version, Supported: h.Supported, Tables: h.Tables}, err)
}

// eventsChanged returns the store's LISTEN/NOTIFY wake-up for the web UI
// when the board is on Postgres, else nil (the web UI polls alone).
func eventsChanged(s store.Store) func(ctx context.Context) <-chan struct{} {
	if db, ok := outbox.Unwrap(s).(*postgres.DB); ok {
		return db.EventsChanged
	}
	return nil
}

// envLeaseTTL sets how long a run's lease on a shared board lasts
// unrenewed (a duration such as 10s); unset means
// heartbeat.DefaultLeaseTTL. Every worker of a board should use the
// same value. Tests shorten it to see a killed worker's lease expire.
const envLeaseTTL = "BONSAI_LEASE_TTL"

// leaseTTL returns the lease TTL BONSAI_LEASE_TTL sets, 0 for the default.
func (a *app) leaseTTL() (time.Duration, error) {
	v := a.getenv(envLeaseTTL)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second {
		return 0, &usageError{Err: fmt.Errorf("%s=%q is not a duration of at least 1s, such as 30s; unset it for the default (%s)", envLeaseTTL, v, heartbeat.DefaultLeaseTTL)}
	}
	return d, nil
}
