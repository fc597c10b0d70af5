package sqlstore

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/bonsai-run/bonsai/internal/store"
)

// DB is the store.Store methods every engine shares, over a database/sql
// handle. The engine's package embeds it and adds opening, migrations and
// the methods its Dialect leaves to it.
type DB struct {
	pool  *sql.DB
	d     Dialect
	now   func() time.Time
	newID func() string
	// The queries the dialect completes.
	dueQuery, sizeQuery, pickAll, pickOne string
	// rebound caches Dialect.Rebind's answer per query text.
	rebound sync.Map
}

// Config is what New needs besides the handle and the dialect.
type Config struct {
	// Now is the store's clock; nil means time.Now.
	Now func() time.Time
	// NewID makes new IDs; nil means random UUIDv7s.
	NewID func() string
}

// New returns the store over pool, speaking d.
func New(pool *sql.DB, d Dialect, c Config) *DB {
	db := &DB{pool: pool, d: d, now: c.Now, newID: c.NewID, dueQuery: dueQuery(d),
		sizeQuery: `SELECT count(*), coalesce(sum(` + d.TextBytes + ` + 1), 0) FROM transcript_lines WHERE ticket_id = ?`,
		pickAll:   d.PickQuery + ` WHERE p.active ORDER BY p.slug`, pickOne: d.PickQuery + ` WHERE p.active AND p.slug = ?`}
	if db.now == nil {
		db.now = time.Now
	}
	if db.newID == nil {
		db.newID = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	return db
}

// queryer is what the pool and a transaction share: queries written with
// ? placeholders, rebound for the engine.
type queryer interface {
	queryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	queryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// scanner is what *sql.Row and *sql.Rows share.
type scanner = store.Scanner

// rebind returns query in the engine's form, rewriting each query text
// once: SQLite's dialect has no Rebind and pays nothing.
func (db *DB) rebind(query string) string {
	if db.d.Rebind == nil {
		return query
	}
	if q, ok := db.rebound.Load(query); ok {
		return q.(string)
	}
	q := db.d.Rebind(query)
	db.rebound.Store(query, q)
	return q
}

// queryContext runs a query on the pool.
func (db *DB) queryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return db.pool.QueryContext(ctx, db.rebind(query), args...)
}

// queryRowContext runs a one-row query on the pool.
func (db *DB) queryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return db.pool.QueryRowContext(ctx, db.rebind(query), args...)
}

// Timestamp returns the current time of the store's clock truncated to
// milliseconds, the resolution the store keeps, so what a method returns
// equals what a later read returns.
func (db *DB) Timestamp() time.Time { return fromMillis(db.now().UnixMilli()) }

// fromMillis converts a stored unix-millisecond time.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
