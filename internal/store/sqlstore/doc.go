// Package sqlstore is the store.Store methods the SQLite and Postgres
// stores share, written once over database/sql: the transactions, the
// board-rule calls, the scans and the events each change appends.
//
// An engine's package opens its database, migrates it, and embeds a *DB
// made by New with its Dialect: the placeholder form (queries here are
// written in SQLite's, ? and rowid, and rebound once per query text),
// whether each query text runs a statement prepared once, how writers are
// ordered (SQLite's process write lock and BEGIN IMMEDIATE,
// Postgres's transaction advisory locks), row locks, the outbox fan-out
// and the few queries and conditions whose text differs (the pick and
// overview among them). Migrate runs an engine's migrations. The engine
// adds WriteTables (store.Copier).
package sqlstore
