package sqlstore

import (
	"context"
	"database/sql"
)

// Dialect is what differs between the engines: the placeholder form, how
// a write transaction is ordered and announced, and the few queries whose
// text cannot be shared. Queries in this package are written in SQLite's
// form (? placeholders, rowid), which Rebind turns into the engine's.
type Dialect struct {
	// Rebind rewrites a query from SQLite's form; nil keeps it as it is.
	// It runs once per query text: the answer is cached.
	Rebind func(query string) string
	// WriteLock, when not nil, is a one-slot semaphore every transaction
	// of this process holds: SQLite's writers queue on it instead of
	// polling the file lock.
	WriteLock chan struct{}
	// LockWrites runs first in each transaction that appends events, so
	// event ids commit in order on every machine; nil when beginning the
	// transaction already orders writers (SQLite's BEGIN IMMEDIATE).
	LockWrites func(ctx context.Context, tx *sql.Tx) error
	// LockLeases runs first in each AcquireLease, so the count of leases
	// under the global limit is exact; nil when writers are serial.
	LockLeases func(ctx context.Context, tx *sql.Tx) error
	// EventAppended runs after each event is inserted, with its insert's
	// result: SQLite fans it out to the notification outbox here.
	EventAppended func(ctx context.Context, tx *sql.Tx, res sql.Result) error
	// Committing runs before a transaction that appended events commits:
	// Postgres notifies its listeners here.
	Committing func(ctx context.Context, tx *sql.Tx) error
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
	// TextBytes is the engine's expression for the size in bytes of the
	// text column line.
	TextBytes string
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
	// sandbox, its ticket counts as "STATE n" pairs joined by commas (NULL
	// for none), and the number, title, state, sub-state, priority and
	// class of its pick (NULLs for none; none for an archived project).
	OverviewQuery string
	// Prepare returns query as a statement prepared once for the life of
	// the store, for the hot path of Pick; nil where the driver prepares
	// and caches statements itself (pgx).
	Prepare func(ctx context.Context, query string) (*sql.Stmt, error)
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
