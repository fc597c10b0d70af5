package sqlstore

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
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
	dueQuery, pickAll, pickOne string
	// rebound caches Dialect.Rebind's answer per query text.
	rebound sync.Map
	// stmts caches the *sql.Stmt of each query text where the dialect
	// prepares (Dialect.Prepare), nil for a text met once in a
	// transaction; nstmts counts the texts, up to maxStmts.
	stmts  sync.Map
	nstmts atomic.Int32
}

// maxStmts bounds the statements a store prepares: the query texts are
// a few hundred, but an IN list of N values is a text of its own, and a
// text past the bound runs unprepared.
const maxStmts = 1024

// Config is what New needs besides the handle and the dialect.
type Config struct {
	// Now is the store's clock; nil means time.Now.
	Now func() time.Time
	// NewID makes new IDs; nil means random UUIDv7s.
	NewID func() string
}

// New returns the store over pool, speaking d.
func New(pool *sql.DB, d Dialect, c Config) *DB {
	db := &DB{pool: pool, d: d, now: c.Now, newID: c.NewID,
		dueQuery: `SELECT ` + scheduleColumns + scheduleFrom + ` WHERE ` + d.DueWhere + ` ORDER BY s.next_fire, s.id`,
		pickAll:  d.PickQuery + ` WHERE p.active ORDER BY p.slug`, pickOne: d.PickQuery + ` WHERE p.active AND p.slug = ?`}
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

// prepared returns query, in the engine's form, as a statement prepared
// once for the life of db (database/sql prepares it again on each pooled
// connection that runs it), or nil where the dialect does not prepare,
// the cache is full or preparing failed: the query then runs as it is,
// and reports what failed. A text first met in a transaction (inTx) is
// prepared when it comes again: the transaction holds its connection, and
// preparing for the pool would open another (a short process has one) to
// compile what the transaction compiles anyway.
func (db *DB) prepared(ctx context.Context, query string, inTx bool) *sql.Stmt {
	if !db.d.Prepare {
		return nil
	}
	v, met := db.stmts.Load(query)
	if st, ok := v.(*sql.Stmt); ok {
		return st
	}
	if db.nstmts.Load() >= maxStmts {
		return nil
	}
	if !met && inTx {
		if _, had := db.stmts.LoadOrStore(query, nil); !had {
			db.nstmts.Add(1)
		}
		return nil
	}
	st, err := db.pool.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if met && db.stmts.CompareAndSwap(query, nil, st) {
		return st
	}
	if !met {
		if _, had := db.stmts.LoadOrStore(query, st); !had {
			db.nstmts.Add(1)
			return st
		}
	}
	st.Close() // another goroutine was quicker: use its statement
	v, _ = db.stmts.Load(query)
	st, _ = v.(*sql.Stmt)
	return st
}

// Statements reports how many query texts db holds prepared.
func (db *DB) Statements() int {
	n := 0
	db.stmts.Range(func(_, v any) bool {
		if _, ok := v.(*sql.Stmt); ok {
			n++
		}
		return true
	})
	return n
}

// Close closes the prepared statements and the pool.
func (db *DB) Close() error {
	db.stmts.Range(func(q, v any) bool {
		if st, ok := v.(*sql.Stmt); ok {
			st.Close()
		}
		db.stmts.Delete(q)
		return true
	})
	db.nstmts.Store(0)
	return db.pool.Close()
}

// queryContext runs a query on the pool.
func (db *DB) queryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	q := db.rebind(query)
	if st := db.prepared(ctx, q, false); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return db.pool.QueryContext(ctx, q, args...)
}

// queryRowContext runs a one-row query on the pool.
func (db *DB) queryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	q := db.rebind(query)
	if st := db.prepared(ctx, q, false); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return db.pool.QueryRowContext(ctx, q, args...)
}

// Timestamp returns the current time of the store's clock truncated to
// milliseconds, the resolution the store keeps, so what a method returns
// equals what a later read returns.
func (db *DB) Timestamp() time.Time { return fromMillis(db.now().UnixMilli()) }

// fromMillis converts a stored unix-millisecond time.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// Dialect is what differs between the engines: the placeholder form, how
// a write transaction is ordered and announced, and the few queries whose
// text cannot be shared. Queries in this package are written in SQLite's
// form (? placeholders, rowid), which Rebind turns into the engine's.
type Dialect struct {
	// Rebind rewrites a query from SQLite's form; nil keeps it as it is.
	// It runs once per query text: the answer is cached.
	Rebind func(query string) string
	// Prepare runs each query text through a statement prepared once
	// (transactions through Tx.StmtContext), where the driver compiles
	// every query it is given: SQLite's spent a quarter of the store
	// tests' CPU time compiling the same statements again. pgx keeps a
	// statement cache of its own on each connection.
	Prepare bool
	// WriteLock, when not nil, is a one-slot semaphore every transaction
	// of this process holds: SQLite's writers queue on it instead of
	// polling the file lock.
	WriteLock chan struct{}
	// LockWrites runs first in each transaction that appends events, so
	// event ids commit in order on every machine; none when beginning the
	// transaction already orders writers (SQLite's BEGIN IMMEDIATE).
	LockWrites Statement
	// LockLeases runs first in each AcquireLease, so the count of leases
	// under the global limit is exact; none when writers are serial.
	LockLeases Statement
	// EventOutbox, when not empty, runs after each event is inserted,
	// with the event's ID (its insert's LastInsertId): SQLite fans it out
	// to the notification outbox here, where Postgres has a trigger.
	EventOutbox string
	// Committing runs before a transaction that appended events commits:
	// Postgres notifies its listeners here.
	Committing Statement
	// Conflict reports an error of a unique key another writer took
	// first; nil when writers are serial and never meet there.
	Conflict func(err error) bool
	// RowLocks says the engine locks rows a transaction reads to change
	// (FOR UPDATE): where writers are serial there is nothing to lock.
	RowLocks bool
	// JoinInOrder is the join that makes the planner read its left table
	// first (SQLite's CROSS JOIN), or a plain JOIN.
	JoinInOrder string
	// DueWhere selects the due schedules (one ? for the time) so that
	// the engine reads them through its partial index.
	DueWhere string
	// CountsQuery is the query of TicketCounts: for each project with
	// tickets, its slug and its counts from ticket_counts as "STATE n"
	// pairs joined by commas (ParseCounts).
	CountsQuery string
	// SchemaQuery lists the tables of the board and their columns, a row
	// per column, for store.Copier's Schema.
	SchemaQuery string
	// PickQuery reads, for each project p, the ticket the pick policy
	// chooses there, kept by the engine's triggers, as TicketColumns then
	// its pick class: the query of Pick without its WHERE clause, which
	// keeps active projects (all, or the one of a ? placeholder).
	PickQuery string
	// OverviewQuery reads, for each project (the archived ones when its ?
	// is true), its slug, name, active flag, model, permission mode and
	// sandbox, its ticket counts as "STATE n" pairs joined by commas (''
	// for none), whether it has a pick (never for an archived project),
	// and the number, title, state, sub-state, priority and class of the
	// pick (zero values for none): no NULLs.
	OverviewQuery string
	// Blobs keeps attachments' bytes in files (SQLite's data directory);
	// nil keeps them in the database.
	Blobs BlobFiles
	// HotQuery runs the queries of the hot reads, Pick and Overview, the
	// engine's fastest way (query is already in the engine's form):
	// Postgres through pgx natively, which scans a third of the CPU time
	// database/sql does. nil runs them as any other query.
	HotQuery func(ctx context.Context, query string, args ...any) (Rows, error)
}

// Statement is a statement a dialect runs at a point of a transaction,
// with its arguments (bound, so the driver keeps its prepared form); the
// zero Statement runs nothing.
type Statement struct {
	Query string
	Args  []any
}

// run runs s in tx.
func (s Statement) run(ctx context.Context, tx *sql.Tx) error {
	if s.Query == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, s.Query, s.Args...)
	return err
}

// Rows is what sqlstore's scans read: *sql.Rows, or an engine's own rows
// from Dialect.HotQuery.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// forUpdate returns the clause that locks the rows of table alias of (all
// tables when empty) a query reads to change, passing over rows another
// transaction holds when skip; "" where the engine has no row locks.
func (db *DB) forUpdate(of string, skip bool) string {
	if !db.d.RowLocks {
		return ""
	}
	s := " FOR UPDATE"
	if of != "" {
		s += " OF " + of
	}
	if skip {
		s += " SKIP LOCKED"
	}
	return s
}

// conflict reports whether err is a unique key another writer took first.
func (db *DB) conflict(err error) bool { return db.d.Conflict != nil && db.d.Conflict(err) }
