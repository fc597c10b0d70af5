package postgres_test

import (
	"os"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestContract runs the Store contract against a real Postgres server,
// each case in a new schema.
func TestContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store {
		db, err := postgres.Open(t.Context(), pgtest.URL(t), postgres.WithClock(now))
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

var storeAll = store.ProjectFilter{IncludeArchived: true}
