package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// DB is the SQLite implementation of store.Store. It is safe for concurrent
// use by many goroutines and, through SQLite's file locks, many processes.
type DB struct {
	*sqlstore.DB
	sql  *sql.DB
	path string
	cfg  sqlstore.Config
	// cachePages bounds each connection's page cache; 0 keeps SQLite's.
	cachePages int
	// writeLock, a one-slot semaphore, orders this process's writers.
	writeLock chan struct{}
}

var _ store.Store = (*DB)(nil)

// Option configures Open.
type Option func(*DB)

// WithClock makes the store read the time from now instead of time.Now, so
// tests get deterministic timestamps.
func WithClock(now func() time.Time) Option { return func(db *DB) { db.cfg.Now = now } }

// WithIDs makes the store take new IDs from newID instead of random UUIDv7s.
func WithIDs(newID func() string) Option { return func(db *DB) { db.cfg.NewID = newID } }

// WithCachePages bounds each connection's page cache to n pages of 4 KiB
// instead of SQLite's 2 MiB. A process that runs a few queries and exits —
// a CLI command — should ask for a small cache: every page SQLite reads
// beyond its first few needs a fresh page buffer from the driver's
// allocator, which a fresh process pays for in system calls and page faults
// (and again when it closes), while a full small cache recycles its buffers.
// `bonsai status` on 100 × 1,000 tickets reads about 250 pages: with
// OneShotCachePages it finishes 1.5–2 ms sooner. Long-running processes keep
// the default, so their hot pages stay cached between queries.
func WithCachePages(n int) Option { return func(db *DB) { db.cachePages = n } }

// OneShotCachePages is the page cache WithCachePages should give a process
// that exits after a few queries: big enough that one write transaction's
// dirty pages fit without spilling, small enough that SQLite's first bulk
// allocation nearly covers it.
const OneShotCachePages = 32

// ErrNotDatabase reports a file that is not a SQLite database, or one too
// damaged to read.
var ErrNotDatabase = errors.New("not a SQLite database (or it is corrupt)")

// SchemaError reports a database whose schema is newer than this binary
// knows: a newer Bonsai wrote it, and this one must not touch it.
type SchemaError = sqlstore.SchemaError

// Open opens the database at path, creating it if it does not exist (mode
// 0600), and migrates its schema to the newest version. When the schema is
// already current, opening costs one query. An empty file is refused with
// ErrEmptyDatabase.
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	if err := ensureFile(ctx, abs, opts); err != nil {
		return nil, err
	}
	return open(ctx, abs, opts)
}

// open opens and migrates the database file abs.
func open(ctx context.Context, abs string, opts []Option) (*DB, error) {
	db := &DB{path: abs, writeLock: make(chan struct{}, 1)}
	for _, o := range opts {
		o(db)
	}
	c, err := sqlite.NewConnector(dsn(abs, db.cachePages))
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", abs, err)
	}
	db.sql = sql.OpenDB(keepWAL{c})
	db.sql.SetMaxIdleConns(maxIdleConns)
	db.sql.SetConnMaxIdleTime(connMaxIdle)
	db.DB = sqlstore.New(db.sql, db.dialect(), db.cfg)
	if err := db.migrateWhenFree(ctx); err != nil {
		db.sql.Close()
		return nil, db.openError(err)
	}
	return db, nil
}

// The pool keeps up to maxIdleConns connections between queries, each
// for up to connMaxIdle. database/sql's default keeps 2 and closes every
// other connection a burst of concurrent queries opened as soon as it is
// returned; each new one costs the DSN's pragmas, a read of the whole
// schema and the prepared statements again. A beat of 200 runs opened
// 176 connections (55 once the runs' control was read in one query), 13%
// of its CPU; it never had more than 9 open at once, so with 16 kept it
// opens each once. The number open stays unbounded:
// a bound would make a writer, holding writeLock, wait for a connection
// behind goroutines that may hold one while asking for another. Whoever
// writes, one at a time: writeLock, BEGIN IMMEDIATE and the busy timeout
// order writers as before, whichever connection each gets.
const (
	maxIdleConns = 16
	connMaxIdle  = time.Minute
)

// openBusyWait is how long Open waits for another process that is creating
// or migrating the same database.
const openBusyWait = 10 * time.Second

// migrateWhenFree migrates, retrying while the database is busy. When
// several processes open a new database at once, one creates it and turns
// on WAL while the others' first statements (the DSN's journal_mode pragma
// among them) get SQLITE_BUSY without SQLite's busy handler being asked:
// changing the journal mode never waits. A short retry loop waits instead.
func (db *DB) migrateWhenFree(ctx context.Context) error {
	deadline := time.Now().Add(openBusyWait)
	for {
		err := db.migrate(ctx)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}

// busyTimeout is how long a writer waits for another process's write
// transaction before failing with SQLITE_BUSY. Each lasts milliseconds,
// but on a machine busy with many agents (or a test suite) a writer can
// queue behind dozens of them, each slowed by the load: 5 s ran out there.
const busyTimeout = "busy_timeout(30000)"

// dsn returns the driver's data source name for the file at abs. The pragmas
// are DSN parameters so that every connection of the pool gets them, and
// _txlock=immediate makes every transaction BEGIN IMMEDIATE: a writer takes
// the write lock up front instead of failing with SQLITE_BUSY when it tries
// to upgrade a read lock another writer also holds.
func dsn(abs string, cachePages int) string {
	q := url.Values{}
	q.Add("_pragma", busyTimeout)
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	// With the WAL kept between processes (keepWAL), the last close
	// truncates it to zero bytes; a long-running process's WAL is cut back
	// to this size after a checkpoint resets it.
	q.Add("_pragma", "journal_size_limit("+strconv.Itoa(walSizeLimit)+")")
	if cachePages > 0 {
		q.Add("_pragma", "cache_size("+strconv.Itoa(cachePages)+")")
	}
	q.Set("_txlock", "immediate")
	return fileDSN(abs, q)
}

// fileDSN is the data source name of the file at abs with the parameters q.
func fileDSN(abs string, q url.Values) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter
	}
	return "file:" + (&url.URL{Path: p}).EscapedPath() + "?" + q.Encode()
}

// walSizeLimit is the journal_size_limit of every connection: 64 MiB, far
// above the 4 MiB at which SQLite checkpoints on its own, so it trims only
// a WAL that a long read let grow.
const walSizeLimit = 64 << 20

// openError turns the driver's error for an unreadable file into one that
// names the file and says what is wrong with it. A directory or a missing
// parent directory, which SQLite reports only as "unable to open", never
// gets here: ensureFile and usableFile refuse them first.
func (db *DB) openError(err error) error {
	var se *SchemaError
	if errors.As(err, &se) {
		return err
	}
	var e *sqlite.Error
	if errors.As(err, &e) {
		switch e.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("database %s: %w; move it aside or restore a backup", db.path, ErrNotDatabase)
		}
	}
	return fmt.Errorf("database %s: %w", db.path, err)
}

// Path returns the absolute path of the database file.
func (db *DB) Path() string { return db.path }
