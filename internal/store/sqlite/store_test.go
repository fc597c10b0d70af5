package sqlite_test

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/storetest"
)

// TestContract runs the Store contract against real database files.
func TestContract(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store {
		return sqlite.OpenCopyForTest(t, sqlite.WithClock(now))
	})
}

// TestContract_SmallCache runs the contract again with the page cache of a
// one-shot process, so transactions whose dirty pages outgrow the cache
// (SQLite then spills them to the log before the commit) are covered too.
func TestContract_SmallCache(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store {
		return sqlite.OpenCopyForTest(t, sqlite.WithClock(now), sqlite.WithCachePages(4))
	})
}

func storeFilter(slug string) store.TicketFilter { return store.TicketFilter{ProjectSlug: slug} }
