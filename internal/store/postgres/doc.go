// Package postgres stores the board in a PostgreSQL database through
// github.com/jackc/pgx/v5, for a board shared by several machines.
//
// It keeps the same contract as the SQLite store (internal/store/storetest
// runs against both) with the same values: times in unix milliseconds, the
// same error classes, the events of a change written in its transaction,
// the pick policy in SQL. Writes that append events take a transaction
// advisory lock first, so events commit in id order as they do in SQLite;
// notification deliveries are claimed with FOR UPDATE SKIP LOCKED instead.
// The schema lives in its own embedded migrations (migrations/), applied
// under an advisory lock. docs/postgres.md explains the choices.
package postgres
