package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache holds the prepared statements of the hot paths, prepared on
// first use so that opening the database stays one query.
type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// prepared returns query as a statement prepared once for the life of db.
// database/sql prepares it again on each pooled connection that runs it.
func (db *DB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	if st, ok := db.stmts.stmts[query]; ok {
		return st, nil
	}
	st, err := db.sql.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if db.stmts.stmts == nil {
		db.stmts.stmts = map[string]*sql.Stmt{}
	}
	db.stmts.stmts[query] = st
	return st, nil
}

// closeStmts closes the prepared statements.
func (db *DB) closeStmts() {
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	for _, st := range db.stmts.stmts {
		st.Close()
	}
	db.stmts.stmts = nil
}
