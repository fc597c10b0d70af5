package sqlite_test

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/storetest"
)

// TestStatsContract runs the stats contract against real database files.
func TestStatsContract(t *testing.T) {
	t.Parallel()
	storetest.RunStats(t, func(t *testing.T, now func() time.Time) store.Store {
		return sqlite.OpenCopyForTest(t, sqlite.WithClock(now))
	})
}
