package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestPool_KeepsItsConnections takes 8 connections at once, five times
// over: the pool opens 8 and keeps them, instead of closing all but two
// after each round and opening them again (database/sql's default).
func TestPool_KeepsItsConnections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	base := db.opens.Load()
	const held = 8
	for range 5 {
		conns := make([]*sql.Conn, held)
		for i := range conns {
			c, err := db.sql.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := c.QueryRowContext(ctx, `SELECT count(*) FROM projects`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			conns[i] = c
		}
		for _, c := range conns {
			c.Close()
		}
	}
	if opened := db.opens.Load() - base; opened > held {
		t.Errorf("five rounds of %d connections at once opened %d connections, want at most %d", held, opened, held)
	}
}
