package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/storetest"
)

// TestContract runs the Store contract against real database files.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "bonsai.db"))
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

func storeFilter(slug string) store.TicketFilter { return store.TicketFilter{ProjectSlug: slug} }
