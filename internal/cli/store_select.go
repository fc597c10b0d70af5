package cli

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/heartbeat"

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
