// Package sqlite stores the board in a SQLite database through the pure-Go
// driver modernc.org/sqlite, so Bonsai builds without cgo.
//
// The database runs in WAL mode with a busy timeout, so several processes on
// one machine (heartbeats, the web server, CLI commands) read and write it at
// once. The store methods shared with Postgres live in store/sqlstore; this
// package opens the file, migrates it (the embedded migrations in
// migrations/), and gives sqlstore its dialect: every write one BEGIN
// IMMEDIATE transaction, queued first on a process write lock, whose events
// fan out to the notification outbox in SQL, and every query a statement
// prepared once. It keeps the pick and overview queries, the copy's
// writes, the WAL kept between processes and the file stamp of the idle
// check.
// docs/store.md explains the design.
package sqlite
