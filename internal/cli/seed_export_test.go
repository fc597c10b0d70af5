package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
)

// SeedData is seedData for the scripts (package cli_test).
var SeedData = seedData

// seedData makes the data directory data holding a copy of a new,
// migrated board as its bonsai.db (sqlitetest's, made once per test
// binary), with config.Init's mode for the directory: the file the first
// command would make, without paying every migration again.
func seedData(data string) error {
	if err := os.MkdirAll(data, config.DirMode); err != nil {
		return err
	}
	db, err := sqlitetest.Open(context.Background(), filepath.Join(data, "bonsai.db"))
	if err != nil {
		return err
	}
	return db.Close()
}
