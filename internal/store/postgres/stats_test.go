package postgres_test

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/store/storetest"
)

// TestStatsContract runs the stats contract against a real Postgres
// server, each case in a new schema.
func TestStatsContract(t *testing.T) {
	t.Parallel()
	storetest.RunStats(t, func(t *testing.T, now func() time.Time) store.Store {
		db, err := postgres.Open(t.Context(), pgtest.URL(t), postgres.WithClock(now))
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}
