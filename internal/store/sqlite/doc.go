// Package sqlite stores the board in a SQLite database through the pure-Go
// driver modernc.org/sqlite, so Bonsai builds without cgo.
//
// The database runs in WAL mode with a busy timeout, so several processes on
// one machine (heartbeats, the web server, CLI commands) read and write it at
// once. Every write is one BEGIN IMMEDIATE transaction that also appends the
// events recording it. The schema is created and upgraded by the embedded
// migrations in migrations/; docs/store.md explains the design.
package sqlite
