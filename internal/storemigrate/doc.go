// Package storemigrate is `bonsai store migrate`: it checks the source
// and target a person named (a SQLite file or a postgres:// URL), opens
// them through the caller's Open (internal/cli holds the store adapters),
// reads a SQLite board's transcripts from its session files, copies the
// board with internal/store/boardcopy and reports what each table holds
// on both sides.
package storemigrate
