package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlstore"
)

// DB is the Postgres implementation of store.Store. It is safe for
// concurrent use by many goroutines, processes and machines.
type DB struct {
	*sqlstore.DB
	pool *pgxpool.Pool
	// sqlDB is the pool through database/sql (pgx's stdlib), for the
	// methods sqlstore shares with SQLite.
	sqlDB *sql.DB
	where string // the URL without its password, for messages
	cfg   sqlstore.Config
	// lockKey is the second key of the store's advisory locks: the
	// schema's, so boards in two schemas of one database do not wait on
	// each other.
	lockKey int32
	schema  string
}

var _ store.Store = (*DB)(nil)

// Option configures Open.
type Option func(*DB)

// WithClock makes the store read the time from now instead of time.Now.
func WithClock(now func() time.Time) Option { return func(db *DB) { db.cfg.Now = now } }

// The first keys of the store's advisory locks ("bon" + a letter).
const (
	lockWrite   int32 = 0x626f6e77 // held by each write transaction that appends events
	lockMigrate int32 = 0x626f6e6d // held while the schema is checked and migrated
)

// minConns is the fewest connections the pool may open unless the URL
// says otherwise (pool_max_conns): pgx's default, the number of CPUs but at
// least 4, is few for a beat whose many runs record their work at once
// (their control is read by one query a tick, and its LISTEN holds one
// connection of its own while runs work). pgxpool keeps its connections
// between queries; database/sql over it (stdlib.OpenDBFromPool) keeps
// none of its own, so no connection is opened per query.
const minConns = 10

// IsURL reports whether s names a Postgres database (postgres:// or
// postgresql://), as store.url and BONSAI_DATABASE_URL do.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact returns the URL u without its password, for messages and logs.
func Redact(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return "the database URL"
	}
	if pu.User != nil {
		if _, ok := pu.User.Password(); ok {
			pu.User = url.UserPassword(pu.User.Username(), "xxxxx")
		}
	}
	q := pu.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		pu.RawQuery = q.Encode()
	}
	return pu.String()
}

// Open connects to the database at url and migrates its schema to the
// newest version. It fails with a message naming the server (never the
// password) when it cannot connect, with a *SchemaError when a newer
// Bonsai wrote the schema, and with ErrNotBonsai when the schema holds
// tables that are not a Bonsai board.
func Open(ctx context.Context, dbURL string, opts ...Option) (*DB, error) {
	db := &DB{where: Redact(dbURL)}
	for _, o := range opts {
		o(db)
	}
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("database %s: not a valid Postgres URL: %w", db.where, unwrapParse(err))
	}
	if !strings.Contains(dbURL, "pool_max_conns") && cfg.MaxConns < minConns {
		cfg.MaxConns = minConns
	}
	if db.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("database %s: %w", db.where, err)
	}
	if err := db.start(ctx); err != nil {
		db.pool.Close()
		return nil, err
	}
	return db, nil
}

// start checks the connection, finds the schema and migrates it.
func (db *DB) start(ctx context.Context) error {
	var err error
	if db.schema, err = currentSchema(ctx, db.pool, db.where); err != nil {
		return err
	}
	h := fnv.New32a()
	h.Write([]byte(db.schema))
	db.lockKey = int32(h.Sum32())
	db.sqlDB = stdlib.OpenDBFromPool(db.pool)
	db.DB = sqlstore.New(db.sqlDB, db.dialect(), db.cfg)
	if err := db.migrate(ctx); err != nil {
		var se *SchemaError
		if errors.As(err, &se) || errors.Is(err, ErrNotBonsai) {
			return err
		}
		return fmt.Errorf("database %s: migrate: %w", db.where, err)
	}
	return nil
}

// currentSchema returns the schema the URL's search_path makes the
// store's, the first query on a new connection: its errors say how to
// reach the server or what to fix.
func currentSchema(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, where string) (string, error) {
	var schema *string
	if err := q.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return "", fmt.Errorf("database %s: cannot connect: %w; check that the server runs and the URL (store.url or BONSAI_DATABASE_URL) is right", where, err)
	}
	if schema == nil {
		return "", fmt.Errorf("database %s: its search_path names no schema that exists; create the schema or fix search_path", where)
	}
	return *schema, nil
}

// unwrapParse keeps what pgx says is wrong with a URL it cannot parse,
// but neither the URL nor the error under it: both may hold a password.
func unwrapParse(err error) error {
	var pe *pgconn.ParseConfigError
	if !errors.As(err, &pe) {
		return errors.New("cannot parse it")
	}
	s := pe.Error()
	if i := strings.LastIndex(s, "`: "); i >= 0 {
		s = s[i+3:]
	}
	s, _, _ = strings.Cut(s, " (")
	return errors.New(s + "; write it as postgres://USER:PASSWORD@HOST:5432/DATABASE")
}

// Where returns the database's URL without its password.
func (db *DB) Where() string { return db.where }

// Close closes the connections: database/sql's over the pool, then the
// pool.
func (db *DB) Close() error {
	if db.DB != nil {
		db.DB.Close()
	}
	db.pool.Close()
	return nil
}
