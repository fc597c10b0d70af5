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

// TestContract_SmallCache runs the contract's writing groups again with a
// page cache of 4 pages, smaller than one-shot processes get, so that
// transactions whose dirty pages outgrow the cache (SQLite then spills
// them to the log before the commit) are covered too. What the cache size
// changes is the pager's path for a transaction that writes more than 4
// pages, the same whichever statement wrote them: these groups hold the
// contract's largest transactions (a ticket with its events, counts and
// queue rows; a move; links and their waiting flags; runs and their
// leases; variants, several tickets at once; a project's settings and its
// archiving). The other groups' transactions are smaller ones of the same
// kinds, and ran here to no more effect than in TestContract, for 5 s of
// CPU under -race.
func TestContract_SmallCache(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store {
		return sqlite.OpenCopyForTest(t, sqlite.WithClock(now), sqlite.WithCachePages(4))
	}, "Project", "Ticket", "Move", "Links", "Run", "Lease", "Variants")
}

func storeFilter(slug string) store.TicketFilter { return store.TicketFilter{ProjectSlug: slug} }
