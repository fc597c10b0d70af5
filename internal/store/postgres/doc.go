// Package postgres stores the board in a PostgreSQL database through
// github.com/jackc/pgx/v5, for a board shared by several machines.
//
// It keeps the same contract as the SQLite store (internal/store/storetest
// runs against both) with the same values: times in unix milliseconds, the
// same error classes, the events of a change written in its transaction.
// The methods both share live in store/sqlstore, run through pgx's stdlib
// over this package's pool; its dialect takes a transaction advisory lock
// before a write that appends events, so events commit in id order as in
// SQLite, and another before a lease, locks rows FOR UPDATE (SKIP LOCKED
// for notification claims and expiring leases), and notifies listeners of
// appended events. The pick and overview, COPY and LISTEN use pgx
// natively. The schema lives in its own embedded migrations
// (migrations/), applied under an advisory lock. docs/postgres.md explains
// the choices.
package postgres
